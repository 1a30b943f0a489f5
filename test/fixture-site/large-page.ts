/**
 * The `/large` page: a valid HTML document of a requested size, streamed in fixed-size blocks.
 *
 * Every block has the same byte length (its number is zero-padded), so the total size is known
 * before the first byte is written and the route can send a Content-Length when asked to.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

const head = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Harbor traffic log, full archive</title>
<meta name="description" content="Every vessel movement recorded by the harbor office, one section per day.">
</head>
<body>
<main>
<h1>Harbor traffic log, full archive</h1>
<p>This archive lists every vessel movement recorded by the harbor office. Each section covers one day.</p>
`;

const tail = `</main>
<footer><p>End of archive.</p></footer>
</body>
</html>
`;

const vessels = [
  'Northern Tern',
  'Saltmarsh',
  'Kestrel Bay',
  'Amberline',
  'Grey Heron',
  'Tidewater',
];
const berths = ['A1', 'A4', 'B2', 'C7', 'D3', 'E5'];

/** One ~2 KB section; `index` is padded so that every block has the same length. */
function block(index: number): string {
  const day = String(index).padStart(7, '0');
  // Padded too: HTML collapses the spaces, and the block keeps its fixed length.
  const vessel = (vessels[index % vessels.length] ?? 'Unknown').padEnd(13, ' ');
  const berth = berths[index % berths.length] ?? 'A1';
  return `<section id="day-${day}">
<h2>Log day ${day}</h2>
<p>The ${vessel} arrived at berth ${berth} shortly after the morning tide and began unloading timber, steel coils and refrigerated containers. The pilot reported light winds from the south-west and good visibility across the outer channel.</p>
<p>Customs inspections finished before noon. Two containers were held for a second check of their paperwork and released later in the afternoon; no goods were seized and no fines were issued.</p>
<p>In the evening the harbor master noted that dredging work near the north breakwater continued on schedule, and that the fuel barge would be out of service for routine maintenance for the next two days.</p>
<table>
<thead><tr><th>Time</th><th>Vessel</th><th>Berth</th><th>Movement</th></tr></thead>
<tbody>
<tr><td>06:40</td><td>${vessel}</td><td>${berth}</td><td>Arrival</td></tr>
<tr><td>11:15</td><td>Harbor tug 2  </td><td>${berth}</td><td>Assist</td></tr>
<tr><td>18:05</td><td>${vessel}</td><td>${berth}</td><td>Departure</td></tr>
</tbody>
</table>
</section>
`;
}

const blockBytes = Buffer.byteLength(block(0));
const frameBytes = Buffer.byteLength(head) + Buffer.byteLength(tail);

/** How many blocks make a page of roughly `bytes` bytes (at least one). */
export function largePageBlocks(bytes: number): number {
  return Math.max(1, Math.round((bytes - frameBytes) / blockBytes));
}

/** The exact byte length of a page of `blocks` blocks. */
export function largePageLength(blocks: number): number {
  return frameBytes + blocks * blockBytes;
}

/**
 * Writes the page to `res`, honouring back-pressure, and stops early if the client goes away so
 * that an aborted download does not keep generating megabytes nobody reads.
 */
export async function streamLargePage(res: ServerResponse, blocks: number): Promise<void> {
  let isClosed = false;
  res.once('close', () => {
    isClosed = true;
  });
  res.write(head);
  // Writing ~32 blocks (64 KB) per write keeps the number of syscalls low without big buffers.
  for (let i = 0; i < blocks && !isClosed;) {
    let chunk = '';
    for (let n = 0; n < 32 && i < blocks; n++, i++) chunk += block(i);
    if (!res.write(chunk) && !isClosed) {
      // Cancel whichever listener loses the race, so long streams do not pile up listeners.
      const controller = new AbortController();
      const { signal } = controller;
      await Promise.race([once(res, 'drain', { signal }), once(res, 'close', { signal })]).catch(
        () => undefined,
      );
      controller.abort();
    }
  }
  if (!isClosed) res.end(tail);
}
