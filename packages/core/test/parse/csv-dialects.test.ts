/**
 * CSV and TSV dialects: the separator, quote and header are sniffed from the file (semicolons,
 * tabs and pipes are as common as commas), RFC 4180 quoting keeps a quoted field one cell, and
 * the `csv` parse option forces what sniffing would guess wrong.
 */
import { describe, expect, it } from 'vitest';
import { parse, TrawlError } from '@trawl/core';

const text = (value: string) => new TextEncoder().encode(value);

describe('parse() of delimited files', () => {
  it('sniffs a semicolon separator and keeps a quoted field with semicolons as one cell', async () => {
    const csv = [
      'Index;Customer Id;Company;Email',
      '1;DD37Cf93aecA6Dc;"Dominguez;Mcmillan and Donovan";zunigavanessa@smith.info',
      '2;1Ef7b82A4CAAD10;Martin, Lang and Andrade;vmata@colon.com',
    ].join('\r\n');
    const doc = await parse(text(csv), { filename: 'customers.csv' });
    expect(doc.markdown).toContain('| Index | Customer Id | Company | Email |');
    expect(doc.markdown).toContain('| 1 | DD37Cf93aecA6Dc | Dominguez;Mcmillan and Donovan |');
    expect(doc.markdown).toContain('| 2 | 1Ef7b82A4CAAD10 | Martin, Lang and Andrade |');
  });

  it('sniffs tab and pipe separators in a file named .csv', async () => {
    const tabbed = await parse(text('city\tpopulation\nParis\t2100000\nLyon\t520000\n'), {
      filename: 'cities.csv',
    });
    expect(tabbed.markdown).toBe(
      '| city | population |\n| --- | --- |\n| Paris | 2100000 |\n| Lyon | 520000 |',
    );
    const piped = await parse(text('a|b|c\n1|2|3\n4|5|6\n'), { filename: 'piped.csv' });
    expect(piped.markdown).toBe('| a | b | c |\n| --- | --- | --- |\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |');
  });

  it('keeps a quoted field holding a line break and the separator as one cell', async () => {
    const doc = await parse(text('id,note\n1,"first line\nsecond, still here"\n2,plain\n'), {
      filename: 'notes.csv',
    });
    const rows = doc.markdown!.split('\n');
    expect(rows).toHaveLength(4);
    expect(rows[2]).toMatch(/^\| 1 \| first line.*second, still here \|$/);
    expect(rows[3]).toBe('| 2 | plain |');
  });

  it('sees a first row of numbers over numbers as data, not a header', async () => {
    const doc = await parse(text('1;2;3\n4;5;6\n'), { filename: 'numbers.csv' });
    expect(doc.markdown).toBe('| | | |\n| --- | --- | --- |\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |');
  });

  it('honours the csv option over what sniffing finds', async () => {
    // Sniffing reads this as semicolon-separated; the caller knows the commas are the separator.
    const bytes = text('a;x,b;c\n1;2,3;4\n5;6,7;8\n');
    const sniffed = await parse(bytes, { filename: 'mixed.csv' });
    expect(sniffed.markdown).toContain('| a | x,b | c |');
    const forced = await parse(bytes, { filename: 'mixed.csv', csv: { delimiter: ',' } });
    expect(forced.markdown).toBe('| a;x | b;c |\n| --- | --- |\n| 1;2 | 3;4 |\n| 5;6 | 7;8 |');
    const headless = await parse(bytes, {
      filename: 'mixed.csv',
      csv: { delimiter: ',', header: false },
    });
    expect(headless.markdown!.split('\n')[0]).toBe('| | |');
    const singleQuoted = await parse(text("a,b\n'x,y',z\n"), {
      filename: 'q.csv',
      csv: { quote: "'" },
    });
    expect(singleQuoted.markdown).toContain('| x,y | z |');
  });

  it('refuses a csv option outside the dialects it knows, once, with a clear error', async () => {
    const error = await parse(text('a,b\n'), {
      filename: 'a.csv',
      csv: { delimiter: ':' as ',' },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TrawlError);
    expect((error as TrawlError).code).toBe('BAD_REQUEST');
    expect((error as TrawlError).message).toContain('csv.delimiter');
  });

  it('reads a file whose quote never closes with every cell kept and a warning', async () => {
    const doc = await parse(text('a,b\n"open,1\n2,3\n'), { filename: 'broken.csv' });
    expect(doc.markdown).toContain('2');
    expect(doc.markdown).toContain('open');
    expect(doc.warning).toMatch(/quoting is broken/);
  });
});
