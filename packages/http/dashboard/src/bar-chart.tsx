/**
 * Bars per day as plain SVG: a dozen elements a day needs no charting library, and each bar
 * carries its value as a title, with the same numbers as a table for screen readers.
 */

export interface Bar {
  /** The day, `2026-12-02`. */
  label: string;
  value: number;
}

const width = 600;
const height = 160;

export function BarChart({ title, bars, unit }: { title: string; bars: Bar[]; unit: string }) {
  if (bars.every((bar) => bar.value === 0)) return <p>No {unit} used in these days.</p>;
  const top = Math.max(1, ...bars.map((bar) => bar.value));
  const step = width / bars.length;
  const barWidth = Math.max(2, Math.min(40, step * 0.7));
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${height + 20}`}
        role="img"
        aria-label={`${title}: a bar per day`}
      >
        {bars.map((bar, index) => {
          const barHeight = Math.round((bar.value / top) * height);
          return (
            <rect
              key={bar.label}
              x={index * step + (step - barWidth) / 2}
              y={height - barHeight}
              width={barWidth}
              height={barHeight}
              class="bar"
            >
              <title>
                {bar.label}: {bar.value} {unit}
              </title>
            </rect>
          );
        })}
        <line x1={0} y1={height} x2={width} y2={height} class="axis" />
        <text x={0} y={height + 16} class="tick">
          {bars[0]?.label}
        </text>
        <text x={width} y={height + 16} class="tick" text-anchor="end">
          {bars.at(-1)?.label}
        </text>
      </svg>
      <figcaption>{title}</figcaption>
      <details>
        <summary>As a table</summary>
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">{unit}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((bar) => (
              <tr key={bar.label}>
                <td>{bar.label}</td>
                <td>{bar.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
