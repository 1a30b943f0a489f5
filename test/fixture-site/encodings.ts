/**
 * Pages in legacy character sets, encoded at start from the texts below with iconv-lite.
 *
 * Each text holds characters that turn into mojibake when decoded with the wrong charset
 * (smart quotes and € sit in 1252's 0x80–0x9F block, which ISO-8859-1 leaves as controls), so a
 * test only has to check that the decoded page contains `encodingSamples[path].expected`.
 */
import iconv from 'iconv-lite';

/** Where a page declares its charset. `none` means it must be detected from the bytes. */
export type CharsetDeclaration = 'header' | 'meta' | 'bom' | 'none';

/** One encoded fixture page and the strings its correctly decoded text contains. */
export interface EncodingSample {
  /** The charset the bytes are really in. */
  charset: 'windows-1252' | 'shift_jis' | 'utf-8';
  /** Where the charset is announced, if anywhere. */
  declaredIn: CharsetDeclaration;
  /** The page's `<title>`, decoded. */
  title: string;
  /** Phrases that appear verbatim in the decoded body text (each inside one paragraph). */
  expected: readonly string[];
}

const cp1252 = {
  lang: 'en',
  title: 'Café Müller’s winter menu — a review',
  paragraphs: [
    '“We bake everything before dawn,” says Hélène Dubois, who has run Café Müller near the old fish market since 2009. Her croissants cost €2.40, and the crème brûlée — the house favourite — is €6.50.',
    'The menu mixes French and German classics: quiche lorraine, Käsespätzle, Apfelstrudel with crème fraîche, and a Flammkuchen that arrives still blistered from the oven. Portions are generous; the strudel alone could feed two.',
    'Seasonal really does mean seasonal here. The soupe à l’oignon appears only from November to February, and the Glühwein (€4.80 a glass) is served from the first frost until Candlemas… or until the barrel runs dry.',
    'Service is brisk but friendly. Jürgen, the head waiter, recommends the Œufs en cocotte for breakfast and insists that the café’s señorita cake — a Catalan almond sponge — is “non-negotiable” with coffee.',
    'Prices have crept up since last winter: the petit déjeuner formule is now €11.90 instead of €9.50. Even so, on a grey Saturday the queue reaches the corner, and nobody in it seems to mind.',
    'Verdict: 4½ stars out of 5. Café Müller™ is open Tuesday to Sunday, 7:30–18:00; reservations are not taken, and the terrace closes when it rains.',
  ],
  expected: [
    '“We bake everything before dawn,”',
    'Hélène Dubois',
    'crème brûlée — the house favourite',
    '€2.40',
    'Käsespätzle',
    'soupe à l’oignon',
    'Œufs en cocotte',
    '4½ stars',
  ],
} as const;

const shiftJis = {
  lang: 'ja',
  title: '港町の朝市を歩く',
  paragraphs: [
    '夜明け前の港に、漁船が次々と戻ってくる。岸壁ではすでに仲買人たちが待ち構えており、水揚げされたばかりの魚がその場で競りにかけられる。この町の朝市は、百年以上続く伝統行事である。',
    '市場の入り口には、地元の農家が育てた野菜や果物が並ぶ。大根、白菜、みかん、柿など、季節ごとに品ぞろえが変わるのが楽しみだ。店主の田中さんは「今年は天候に恵まれて、甘いみかんができました」と笑顔で話してくれた。',
    '奥へ進むと、干物や練り物を売る店が軒を連ねている。炭火で焼いたばかりのアジの開きは、香ばしい匂いで通りすがりの客を引き寄せる。観光客だけでなく、地元の人々も毎朝のように買い物に訪れるという。',
    '朝市は午前五時に始まり、正午には片付けが始まる。駐車場は限られているため、駅から徒歩で向かうのがおすすめだ。港の近くには小さな食堂もあり、新鮮な刺身定食を手頃な値段で味わうことができる。',
    '町の観光協会によると、昨年の来場者数はおよそ三十万人に達した。協会では今後、英語や中国語の案内板を増やし、海外からの旅行者にも分かりやすい市場づくりを進めていく予定だ。',
    '取材を終えて帰る頃には、空はすっかり明るくなっていた。潮の香りと威勢のいい掛け声に包まれた朝の時間は、この町に暮らす人々の元気の源なのだろう。',
  ],
  expected: [
    '港町の朝市を歩く',
    '「今年は天候に恵まれて、甘いみかんができました」',
    '刺身定食',
    '三十万人',
  ],
} as const;

const utf8 = {
  lang: 'en',
  title: 'Greetings from around the world — a traveller’s phrasebook',
  paragraphs: [
    'Every trip starts with a greeting. In Munich you will hear “Grüß Gott” as often as “Guten Tag”, and a postcard home might begin with Grüße aus München.',
    'In Athens, mornings belong to Καλημέρα (good morning); by evening it becomes Καλησπέρα. A naïve café order in English still works, but a greeting in Greek earns a smile.',
    'Moscow’s formal greeting is Здравствуйте, a word that trips up most visitors — try breaking it into syllables: здра-вствуй-те.',
    'In Tokyo, こんにちは covers most of the day, and ありがとうございます is the phrase you will use most often at shops and stations.',
    'Prices on the road: a coffee ☕ costs about €3 in Paris, ¥450 in Tokyo and ₽250 in Moscow; a metro ticket is roughly £2.80 in London.',
  ],
  expected: [
    'Grüße aus München',
    'Καλημέρα',
    'Здравствуйте',
    'こんにちは',
    'coffee ☕ costs about €3',
  ],
} as const;

type Text = typeof cp1252 | typeof shiftJis | typeof utf8;

/** Expected decoded content of each `/enc/…` route, keyed by path. */
export const encodingSamples = {
  '/enc/windows-1252-header.html': sample('windows-1252', 'header', cp1252),
  '/enc/windows-1252-meta.html': sample('windows-1252', 'meta', cp1252),
  '/enc/windows-1252-none.html': sample('windows-1252', 'none', cp1252),
  '/enc/shift_jis-header.html': sample('shift_jis', 'header', shiftJis),
  '/enc/shift_jis-meta.html': sample('shift_jis', 'meta', shiftJis),
  '/enc/shift_jis-none.html': sample('shift_jis', 'none', shiftJis),
  '/enc/utf8-bom.html': sample('utf-8', 'bom', utf8),
  '/enc/utf8-none.html': sample('utf-8', 'none', utf8),
} as const satisfies Record<string, EncodingSample>;

/** A path of one of the encoded pages. */
export type EncodedPath = keyof typeof encodingSamples;

function sample(
  charset: EncodingSample['charset'],
  declaredIn: CharsetDeclaration,
  text: Text,
): EncodingSample {
  return { charset, declaredIn, title: text.title, expected: text.expected };
}

/** What the server sends for one encoded page. */
export interface EncodedResponse {
  contentType: string;
  body: Buffer;
}

function render(path: EncodedPath, text: Text): EncodedResponse {
  const { charset, declaredIn } = encodingSamples[path];
  // The meta tag uses both spellings real pages use: HTML5 `charset` and the older http-equiv.
  const meta =
    declaredIn !== 'meta'
      ? ''
      : charset === 'shift_jis'
        ? '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">\n'
        : `<meta charset="${charset}">\n`;
  const html = `<!DOCTYPE html>
<html lang="${text.lang}">
<head>
${meta}<title>${text.title}</title>
</head>
<body>
<article>
<h1>${text.title}</h1>
${text.paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</article>
</body>
</html>
`;
  const headerCharset = charset === 'shift_jis' ? 'Shift_JIS' : charset;
  const contentType = declaredIn === 'header' ? `text/html; charset=${headerCharset}` : 'text/html';
  if (charset === 'utf-8') {
    const bytes = Buffer.from(html, 'utf8');
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    return { contentType, body: declaredIn === 'bom' ? Buffer.concat([bom, bytes]) : bytes };
  }
  const body = iconv.encode(html, charset);
  // iconv-lite silently substitutes '?' for unmappable characters; fail loudly instead, since a
  // substitution would make the page test the wrong thing.
  if (iconv.decode(body, charset) !== html) {
    throw new Error(`fixture text for ${path} is not representable in ${charset}`);
  }
  return { contentType, body };
}

const texts: Record<EncodedPath, Text> = {
  '/enc/windows-1252-header.html': cp1252,
  '/enc/windows-1252-meta.html': cp1252,
  '/enc/windows-1252-none.html': cp1252,
  '/enc/shift_jis-header.html': shiftJis,
  '/enc/shift_jis-meta.html': shiftJis,
  '/enc/shift_jis-none.html': shiftJis,
  '/enc/utf8-bom.html': utf8,
  '/enc/utf8-none.html': utf8,
};

/** The encoded bytes of every `/enc/…` page, built once when the module loads. */
export const encodedPages: ReadonlyMap<string, EncodedResponse> = new Map(
  (Object.keys(texts) as EncodedPath[]).map((path) => [path, render(path, texts[path])]),
);
