/**
 * What the corpus deck's second slide reads as, the same whether the deck was saved as PPTX or
 * as ODP: both formats must give the same headings, list nesting and speaker notes.
 */
export const surveySlideMarkdown = [
  '## Survey highlights',
  '',
  '- Water quality improved in all three zones',
  '- Failing samples fell from eleven to four',
  '  - All four followed heavy rain',
  '- Common terns nested on the breakwater',
  '',
  '### Notes',
  '',
  'Thank the volunteers from the sailing club for the weekly samples.',
].join('\n');
