// Writes the demo corpus (demo/corpus.jsonl) and its judgements (demo/queries.jsonl, demo/qrels.tsv).
//
// The text is original and entirely fictional: twelve invented places of an imaginary archipelago, each described
// under eight aspects, in English and in Korean, with slots filled by a seeded generator so the output is the same
// on every run. Queries are written per (place, aspect); the passages of that place and aspect in the query's
// language are relevant (grade 1). Shared template words make the ranking non-trivial: every place has a "harbour"
// paragraph, so a query must match the place name and the aspect to rank the right passage first.
//
//   node demo/make-corpus.mjs [out-dir]     (the outputs are committed; rerun only after editing this file)
import { writeFileSync } from 'node:fs'

// Output folder: demo/ itself, or the first argument (the tests regenerate into a temp folder and compare).
const here = process.argv[2] ? `${process.argv[2].replace(/\/$/, '')}/` : new URL('.', import.meta.url).pathname

// Mulberry32: a tiny seeded PRNG, so the corpus is reproducible byte for byte.
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const rand = rng(20261129)
const pick = (list) => list[Math.floor(rand() * list.length)]

const PLACES = [
  ['velmora', 'Velmora', '벨모라'],
  ['quillon', 'Quillon', '퀼론'],
  ['ostrava-bay', 'Ostrel Bay', '오스트렐 만'],
  ['tarnwick', 'Tarnwick', '타른윅'],
  ['lisseren', 'Lisseren', '리세렌'],
  ['embergate', 'Embergate', '엠버게이트'],
  ['saltmere', 'Saltmere', '솔트미어'],
  ['corvane', 'Corvane', '코르반'],
  ['harrowfen', 'Harrowfen', '해로우펜'],
  ['pellucid-isle', 'Pellucid Isle', '펠루시드 섬'],
  ['dunmarrow', 'Dunmarrow', '던매로우'],
  ['ysolde', 'Ysolde', '이솔데'],
]

const EN = {
  history: [
    (p, s) =>
      `${p} was founded in ${s.year} by ${s.founder}, who came to the archipelago looking for ${s.resource}. The old chronicle of ${p} says the first settlers built a ${s.building} before any house.`,
    (p, s) =>
      `Historians date the first stone walls of ${p} to ${s.year}. During the long war the town changed hands ${s.count} times, and the treaty that ended it was signed in ${p}'s ${s.building}.`,
  ],
  climate: [
    (p, s) =>
      `The climate of ${p} is ${s.climate}. Winters bring ${s.weather}, and the average summer temperature stays near ${s.temp} degrees. Fishermen in ${p} watch the sky for storms from the ${s.direction}.`,
    (p, s) =>
      `Rainfall in ${p} peaks in ${s.month}, when ${s.weather} rolls in from the ${s.direction}. Snow is rare, and the climate is mild enough for ${s.crop} to grow on the terraces.`,
  ],
  food: [
    (p, s) =>
      `The best known dish of ${p} is ${s.dish}, a stew of ${s.fish} slow cooked with ${s.crop}. Every family in ${p} claims its own recipe, and the cooks guard the spice mix.`,
    (p, s) =>
      `Street food in ${p} means grilled ${s.fish} with ${s.crop} bread. Visitors should try the ${s.dish} served in the market hall, eaten with a sour plum sauce.`,
  ],
  festival: [
    (p, s) =>
      `Each ${s.month} ${p} holds the ${s.festival}, a festival of lanterns and drums that lasts ${s.count} days. Boats decorated with paper lanterns sail around the harbour at night.`,
    (p, s) =>
      `The ${s.festival} of ${p} celebrates the first catch of the year. Dancers in masks parade from the ${s.building} to the sea, and the festival ends with fireworks over the bay.`,
  ],
  transport: [
    (p, s) =>
      `To reach ${p}, take the ferry from ${s.other}; the crossing takes ${s.count} hours. There is no airport, but a cable car links the harbour to the upper town of ${p}.`,
    (p, s) =>
      `A narrow gauge railway runs from ${p} to ${s.other} twice a day. In town most people ride bicycles, and the ferry timetable changes in ${s.month}.`,
  ],
  economy: [
    (p, s) =>
      `The economy of ${p} rests on ${s.resource} and on fishing for ${s.fish}. The ${s.resource} mines employ about ${s.count} hundred workers, and exports leave through the harbour.`,
    (p, s) =>
      `Trade made ${p} rich: merchants sold ${s.resource} and dried ${s.fish} to ${s.other}. Today tourism and a small shipyard add jobs to the local economy.`,
  ],
  wildlife: [
    (p, s) =>
      `The cliffs of ${p} shelter colonies of ${s.bird}, and ${s.animal} can be seen on the rocks at low tide. A nature reserve protects the wildlife of the northern cape.`,
    (p, s) =>
      `Birdwatchers come to ${p} in ${s.month} for the migration of ${s.bird}. The forests behind the town are home to the rare ${s.animal}.`,
  ],
  architecture: [
    (p, s) =>
      `The skyline of ${p} is dominated by the ${s.building}, built of ${s.stone} in the style of the northern islands. Houses in the old quarter have blue shutters and steep slate roofs.`,
    (p, s) =>
      `Architects admire the ${s.building} of ${p}, whose ${s.stone} arches have survived ${s.count} earthquakes. The town hall next to it was rebuilt after a fire.`,
  ],
}

const KO = {
  history: [
    (p, s) =>
      `${p}{은} ${s.year}년에 ${s.founder}{가} ${s.resource}{을} 찾아 군도에 와서 세웠다. ${p}의 옛 연대기에 따르면 첫 정착민들은 집보다 먼저 ${s.building}{을} 지었다.`,
    (p, s) =>
      `역사학자들은 ${p}의 첫 돌담을 ${s.year}년으로 본다. 긴 전쟁 동안 도시는 ${s.count}번 주인이 바뀌었고, 전쟁을 끝낸 조약은 ${p}의 ${s.building}에서 서명되었다.`,
  ],
  climate: [
    (p, s) =>
      `${p}의 기후는 ${s.climate}. 겨울에는 ${s.weather}{이} 찾아오고 여름 평균 기온은 ${s.temp}도 안팎이다. ${p}의 어부들은 ${s.direction}쪽에서 오는 폭풍을 살핀다.`,
    (p, s) =>
      `${p}의 강수량은 ${s.month}에 가장 많으며, 이때 ${s.direction}쪽에서 ${s.weather}{이} 몰려온다. 눈은 드물고 기후가 온화해서 계단식 밭에서 ${s.crop}{가} 자란다.`,
  ],
  food: [
    (p, s) =>
      `${p}의 대표 음식은 ${s.dish}{로}, ${s.fish}{를} ${s.crop}{와} 함께 오래 끓인 찌개다. ${p}의 집집마다 자기만의 요리법이 있고 양념 배합은 비밀이다.`,
    (p, s) =>
      `${p}의 길거리 음식은 ${s.crop} 빵을 곁들인 ${s.fish} 구이다. 방문객은 시장에서 파는 ${s.dish}{를} 새콤한 자두 소스와 함께 먹어 봐야 한다.`,
  ],
  festival: [
    (p, s) =>
      `${p}에서는 해마다 ${s.month}에 ${s.festival}{가} 열린다. 등불과 북의 축제로 ${s.count}일 동안 이어지며, 밤에는 종이 등을 단 배들이 항구를 돈다.`,
    (p, s) =>
      `${p}의 ${s.festival}{는} 한 해의 첫 어획을 기념하는 축제다. 탈을 쓴 무용수들이 ${s.building}에서 바다까지 행진하고 만 위의 불꽃놀이로 축제가 끝난다.`,
  ],
  transport: [
    (p, s) =>
      `${p}에 가려면 ${s.other}에서 배를 타면 되고 바다를 건너는 데 ${s.count}시간이 걸린다. 공항은 없지만 케이블카가 항구와 ${p}의 윗마을을 잇는다.`,
    (p, s) =>
      `좁은 궤도의 철도가 하루 두 번 ${p}{과} ${s.other} 사이를 달린다. 시내에서는 대부분 자전거를 타며, 배 시간표는 ${s.month}에 바뀐다.`,
  ],
  economy: [
    (p, s) =>
      `${p}의 경제는 ${s.resource}{과} ${s.fish} 어업에 기대고 있다. ${s.resource} 광산에서 약 ${s.count}백 명이 일하며 수출품은 항구를 통해 나간다.`,
    (p, s) =>
      `${p}{은} 무역으로 부유해졌다. 상인들은 ${s.resource}{과} 말린 ${s.fish}{를} ${s.other}에 팔았다. 오늘날에는 관광과 작은 조선소가 지역 경제에 일자리를 더한다.`,
  ],
  wildlife: [
    (p, s) =>
      `${p}의 절벽에는 ${s.bird} 무리가 살고, 썰물 때는 바위 위에서 ${s.animal}{을} 볼 수 있다. 자연 보호구역이 북쪽 곶의 야생 동물을 지킨다.`,
    (p, s) =>
      `${s.month}이면 ${s.bird}의 이동을 보려고 탐조객들이 ${p}{을} 찾는다. 마을 뒤 숲에는 희귀한 ${s.animal}{이} 산다.`,
  ],
  architecture: [
    (p, s) =>
      `${p}의 풍경을 압도하는 것은 북쪽 섬 양식으로 ${s.stone}{을} 쌓아 지은 ${s.building}이다. 옛 구역의 집들은 파란 덧창과 가파른 슬레이트 지붕을 가졌다.`,
    (p, s) =>
      `건축가들은 ${p}의 ${s.building}{을} 높이 평가한다. ${s.stone} 아치는 지진을 ${s.count}번 견뎠고, 옆의 시청은 화재 뒤에 다시 지어졌다.`,
  ],
}

// Slot values: [English, Korean] pairs picked together so both languages describe the same fictional facts.
const SLOTS = {
  founder: [
    ['a salt trader named Orin', '소금 상인 오린'],
    ['the navigator Calla Venn', '항해사 칼라 벤'],
    ['two exiled monks', '추방된 두 수도사'],
    ['the shipwright Arvo', '배 목수 아르보'],
  ],
  resource: [
    ['amber', '호박'],
    ['tin', '주석'],
    ['sea salt', '천일염'],
    ['silver', '은'],
    ['blue clay', '푸른 점토'],
  ],
  building: [
    ['lighthouse', '등대'],
    ['granary', '곡물 창고'],
    ['chapel', '예배당'],
    ['watchtower', '망루'],
    ['covered market', '지붕 덮인 시장'],
  ],
  climate: [
    ['cool and windy', '서늘하고 바람이 많다'],
    ['humid and warm', '습하고 따뜻하다'],
    ['dry and sunny', '건조하고 화창하다'],
    ['foggy most of the year', '일 년 내내 안개가 잦다'],
  ],
  weather: [
    ['heavy fog', '짙은 안개'],
    ['cold rain', '찬비'],
    ['strong gales', '거센 강풍'],
    ['sea mist', '바다 안개'],
  ],
  direction: [
    ['north', '북'],
    ['west', '서'],
    ['east', '동'],
    ['south', '남'],
  ],
  month: [
    ['March', '3월'],
    ['May', '5월'],
    ['August', '8월'],
    ['October', '10월'],
    ['December', '12월'],
  ],
  crop: [
    ['barley', '보리'],
    ['buckwheat', '메밀'],
    ['sweet potato', '고구마'],
    ['millet', '조'],
  ],
  dish: [
    ['kettle stew', '주전자 찌개'],
    ['black pot', '검은 솥 요리'],
    ['harbour broth', '항구 국'],
    ['smoked pie', '훈제 파이'],
  ],
  fish: [
    ['mackerel', '고등어'],
    ['cod', '대구'],
    ['eel', '장어'],
    ['squid', '오징어'],
    ['herring', '청어'],
  ],
  festival: [
    ['Lantern Tide', '등불 물결 축제'],
    ['Drum Moon', '북달 축제'],
    ['Feast of Nets', '그물 잔치'],
    ['Salt Night', '소금 밤 축제'],
  ],
  other: [
    ['the mainland port', '본토 항구'],
    ['Kestrel Point', '케스트럴 곶'],
    ['the capital', '수도'],
    ['Ironhold', '아이언홀드'],
  ],
  bird: [
    ['puffins', '퍼핀'],
    ['grey herons', '왜가리'],
    ['storm petrels', '바다제비'],
    ['cormorants', '가마우지'],
  ],
  animal: [
    ['seals', '물범'],
    ['pine martens', '담비'],
    ['otters', '수달'],
    ['red deer', '붉은사슴'],
  ],
  stone: [
    ['red granite', '붉은 화강암'],
    ['white limestone', '흰 석회암'],
    ['basalt', '현무암'],
    ['sandstone', '사암'],
  ],
}

// Queries: [aspect, English template, Korean template]; one English and one Korean query per (place, aspect) pair
// listed in QUERY_PAIRS, so the judgement set covers every aspect and every place.
const QUERIES = {
  history: ['who founded {p} and when', '{p}{은} 언제 누가 세웠나'],
  climate: ['what is the weather and climate like in {p}', '{p}의 날씨와 기후'],
  food: ['traditional dish to eat in {p}', '{p}의 대표 음식'],
  festival: ['{p} festival with lanterns', '{p} 축제'],
  transport: ['how to get to {p} by ferry or train', '{p}에 가는 교통편'],
  economy: ['what drives the economy of {p}', '{p}의 경제와 산업'],
  wildlife: ['birds and animals to see in {p}', '{p}의 야생 동물과 새'],
  architecture: ['famous buildings and architecture of {p}', '{p}의 건축물'],
}

// Korean particles depend on the last syllable of the word before: 은/는, 이/가, 을/를, 과/와, 으로/로.
// Templates mark them as {은} after a slot; this picks the right form once the slot is filled.
const PARTICLES = {
  은: ['은', '는'],
  는: ['은', '는'],
  이: ['이', '가'],
  가: ['이', '가'],
  을: ['을', '를'],
  를: ['을', '를'],
  과: ['과', '와'],
  와: ['과', '와'],
  로: ['으로', '로'],
}
function particles(text) {
  return text.replace(/(.)\{(은|는|이|가|을|를|과|와|로)\}/gu, (_, last, p) => {
    const code = last.charCodeAt(0) - 0xac00
    const batchim = code >= 0 && code < 11172 && code % 28 !== 0
    const [withFinal, without] = PARTICLES[p]
    // 로 after a final ㄹ (code % 28 === 8) stays 로.
    return last + (p === '로' && code % 28 === 8 ? '로' : batchim ? withFinal : without)
  })
}

const aspects = Object.keys(EN)
const docs = []
for (const [key, en, ko] of PLACES) {
  for (const aspect of aspects) {
    for (let v = 0; v < EN[aspect].length; v++) {
      const s = Object.fromEntries(Object.entries(SLOTS).map(([k, values]) => [k, pick(values)]))
      const year = 1100 + Math.floor(rand() * 700)
      const count = 2 + Math.floor(rand() * 9)
      const temp = 14 + Math.floor(rand() * 12)
      const enSlots = { ...Object.fromEntries(Object.entries(s).map(([k, x]) => [k, x[0]])), year, count, temp }
      const koSlots = { ...Object.fromEntries(Object.entries(s).map(([k, x]) => [k, x[1]])), year, count, temp }
      docs.push({
        id: `en/${key}/${aspect}/${v}`,
        text: EN[aspect][v](en, enSlots),
        meta: { lang: 'en', place: key, aspect },
      })
      docs.push({
        id: `ko/${key}/${aspect}/${v}`,
        text: particles(KO[aspect][v](ko, koSlots)),
        meta: { lang: 'ko', place: key, aspect },
      })
    }
  }
}

const queries = []
const qrels = []
PLACES.forEach(([key, en, ko], i) => {
  // Two aspects per place, rotating, so 12 places x 2 aspects x 2 languages = 48 queries.
  for (const aspect of [aspects[i % aspects.length], aspects[(i + 3) % aspects.length]]) {
    const [enQ, koQ] = QUERIES[aspect]
    for (const [lang, text] of [
      ['en', enQ.replaceAll('{p}', en)],
      ['ko', particles(koQ.replaceAll('{p}', ko))],
    ]) {
      const qid = `${lang}-${key}-${aspect}`
      queries.push({ _id: qid, text, lang })
      for (const d of docs) if (d.id.startsWith(`${lang}/${key}/${aspect}/`)) qrels.push(`${qid}\t${d.id}\t1`)
    }
  }
})

const jsonl = (rows) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`
// BEIR layout: corpus.jsonl {_id, title, text, metadata}, queries.jsonl {_id, text}, qrels TSV with a header.
writeFileSync(`${here}corpus.jsonl`, jsonl(docs.map((d) => ({ _id: d.id, title: '', text: d.text, metadata: d.meta }))))
writeFileSync(`${here}queries.jsonl`, jsonl(queries))
writeFileSync(`${here}qrels.tsv`, `query-id\tcorpus-id\tscore\n${qrels.join('\n')}\n`)
console.log(`${docs.length} passages, ${queries.length} queries, ${qrels.length} judgements`)
