// What §13, the coda (heads that share K and V: MQA, GQA), says, Chinese first and English second: loaded with
// the coda's module, so not merged into web/page/text.js (which holds only its title) nor in the first view.
// The sentences about the worked example are made from facts.js's facts alone.

/** Bytes in the binary units a memory bill uses: 16 B, 72 KiB, 2 GiB (one decimal when not whole). */
export function bytesText(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let unit = 0;
  while (unit < units.length - 1 && bytes >= 1024 ** (unit + 1)) unit++;
  return `${Number((bytes / 1024 ** unit).toFixed(1))} ${units[unit]}`;
}

const signed = (points) => (points > 0 ? `+${points}` : `−${-points}`);

/** The other cells that moved as much: named when one or two, else counted. */
const tiesZh = (ties) => (!ties.length ? '' : ties.length > 2
  ? `；另有 ${ties.length} 格变得一样多`
  : `；${ties.map((c) => `“${c.row}”看“${c.col}”${c.from}% → ${c.to}%`).join('，')}，变得一样多`);
const tiesEn = (ties) => (!ties.length ? '' : ties.length > 2
  ? `; ${ties.length} other cells moved as much`
  : `; ${ties.map((c) => `“${c.row}” looking at “${c.col}”, ${c.from}% → ${c.to}%`).join(', and ')}, moved as much`);

function changeZh(f) {
  const said = [];
  if (f.handHeads !== f.heads) said.push(`第三节此刻是 h = ${f.handHeads}；这里照课文用 h = ${f.heads} 对照。`);
  if (f.moved.every((m) => m === null)) {
    said.push(`共用一副 K、V 之后，两个头的配比表一个数都没变（按图上的两位小数）。`);
  } else {
    said.push(f.moved.map((m, head) => (m === null
      ? `头 ${head + 1} 的配比一个数都没变。`
      : `头 ${head + 1} 变得最多的一格，是“${m.row}”这一行看“${m.col}”：${m.from}% → ${m.to}%（${signed(m.points)} 个百分点${tiesZh(m.ties)}）。`)).join(''));
  }
  if (f.sameNow && !f.sameBefore) said.push('共用之后，两个头的配比表一模一样：两套眼镜，一种眼光。省下的 K、V 是拿眼光的分化换来的——真实模型转换之后，还要再训练一小会儿（Ainslie 等用了原训练量的 5%），让各头重新分工。');
  else if (f.sameNow) said.push('两个头在第三节里就看法一样，共用 K、V 之后也还一样。');
  else said.push('两个头的 q 不一样，所以读同一份 K、V 也还能有两种眼光：区别只剩下“各自问什么”。');
  return said;
}

function changeEn(f) {
  const said = [];
  if (f.handHeads !== f.heads) said.push(`Section 3 has h = ${f.handHeads} now; here the lesson's h = ${f.heads} is compared.`);
  if (f.moved.every((m) => m === null)) {
    said.push('With one shared K and V, neither head\'s weights moved at all (at the figures\' two decimals).');
  } else {
    said.push(f.moved.map((m, head) => (m === null
      ? `Head ${head + 1}'s weights did not move at all.`
      : `Head ${head + 1} moved most where “${m.row}” looks at “${m.col}”: ${m.from}% → ${m.to}% (${signed(m.points)} points${tiesEn(m.ties)}).`)).join(' '));
  }
  if (f.sameNow && !f.sameBefore) said.push('Sharing made the two heads\' weight maps identical: two pairs of glasses, one way of looking. The K and V saved were paid for with the heads\' different views — a real model, once converted, is trained a little more (Ainslie et al. used 5% of the original training) for its heads to divide the work again.');
  else if (f.sameNow) said.push('The two heads already looked alike in section 3, and they still do with K and V shared.');
  else said.push('The two heads\' q differ, so reading the same K and V they can still look two ways: all that tells them apart now is what each asks.');
  return said;
}

/** "1 keeps its view", "3 keep theirs": the verb agrees with the count of heads. */
const keeps = (n, what) => `${n} ${n === 1 ? 'keeps' : 'keep'} ${what}`;
const KINDS_ZH = { mha: 'MHA（每头一副）', gqa: 'GQA（分组共用）', mqa: 'MQA（全体共用）' };
const KINDS_EN = { mha: 'MHA (one each)', gqa: 'GQA (shared by groups)', mqa: 'MQA (shared by all)' };

export const GQA_TEXT = {
  zh: {
    lead: '课文讲到多头注意力就结束了。可很多课程讲完多头，紧接着讲的就是这一步：几套眼镜共用一副 K、V 镜片。每个头仍有自己的 Q 镜片——各问各的问题；可用来被找的 K 和被取走的 V，由一组头共用。所有头共用一副，叫多查询注意力（MQA，Shazeer 2019）；分成几组、每组共用一副，叫分组查询注意力（GQA，Ainslie 等 2023）。',
    why: '为什么要省 K 和 V？一个模型逐词生成时，要把前面每个词的 K、V 都存着（KV 缓存），下一个词还要回头看它们。头越多，这笔缓存越大——下面的账单算给你看。',
    exampleTitle: '「猫吃鱼」：两个头，一副 K、V',
    exampleLead: '还是老朋友「猫吃鱼」：h = 2，只留 h_kv = 1 副 K、V。把多头模型改成共用的办法照 Ainslie 等（2023）：同一组头的 K 列逐格取平均，V 列也一样——这里就是头 1 的两列 K 和头 2 的两列 K 对应相加除以 2。q 一个数不动，两个头读的是同一份 K、V。数字都跟着第三节：在那里改 q、k、v、掩码或缩放，这里一起变。',
    kShared: '共用的 K（两头 K 列的平均）',
    vShared: '共用的 V（两头 V 列的平均）',
    headTitle: (head) => `头 ${head + 1}`,
    readsGroup: (group) => `读 K/V 头 ${group + 1}`,
    weightsBefore: '第三节的配比（各有 K、V）',
    scores: '打分（共用 K）',
    weights: '配比（共用 K）',
    output: '头输出（共用 V）',
    changeTitle: '变了什么',
    change: changeZh,
    rowHeader: '词',
    stale: '第三节的输入此刻算不了，这一节等它改好再算：',
    billTitle: '账单续篇：参数和 KV 缓存',
    billLead: '每一层的参数（W_Q、W_K、W_V、Wᴼ）和 KV 缓存，全由内核的 paramCount 算出。缓存按“每个词、所有层”算，再乘上上下文长度 N。',
    context: 'N（上下文长度：缓存多少个词）',
    models: {
      lesson: '课文的尺寸：d_model = 4，h = 2，1 层，32 位',
      gpt2: 'GPT-2 small：d_model = 768，h = 12，12 层，32 位（GQA 取 h_kv = 4 作例）',
      modern: '一种现代配置：d_model = 4096，32 个查询头，32 层，16 位缓存',
    },
    kind: (kind) => KINDS_ZH[kind],
    columns: { kind: '做法', kvHeads: 'h_kv', wq: 'W_Q', wkv: 'W_K + W_V', wo: 'Wᴼ', total: '每层合计', perToken: '每个词的缓存', forContext: (n) => `${n.toLocaleString('en-US')} 个词的缓存` },
    noGqa: 'h = 2 时，1 和 2 之间没有别的约数：这里只有 MHA 和 MQA。',
    billNote: '只有 W_K、W_V 和缓存变小；W_Q 和 Wᴼ 一点没省——每个头还得问自己的问题，最后还得开会融合。',
    groupsTitle: '流水线：哪些头读哪副 K、V',
    groupsLead: '选 h 和 h_kv（h_kv 得整除 h）：同一种颜色的查询头读同一副 K、V。h_kv = h 就是第三节的多头，h_kv = 1 就是 MQA。',
    heads: 'h（查询头数）',
    kvHeads: 'h_kv（K/V 头数）',
    divisors: (list) => `h 的约数：${list.join('、')}`,
    queryHead: (head) => `Q 头 ${head + 1}`,
    kvHead: (group) => `K/V 头 ${group + 1}`,
    groupLine: (group, members) => `K/V 头 ${group + 1} ← ${members.map((m) => `Q 头 ${m + 1}`).join('、')}`,
    groupKind: (heads, kvHeads) => (kvHeads === heads ? '这就是多头注意力（MHA）：每头一副。' : kvHeads === 1 ? '这就是多查询注意力（MQA）：所有头共用一副。' : `这是分组查询注意力（GQA）：${kvHeads} 组，每组 ${heads / kvHeads} 个头共用一副。`),
    approx: (bytes) => bytesText(bytes),
    questionsTitle: '试一试：两道题，内核来判',
    questions: {
      cache: { prompt: () => 'GPT-2 small（d_model = 768，h = 12，12 层，32 位）改成 MQA（h_kv = 1），一个词在 12 层里的 K、V 缓存一共多少 KiB？', label: 'KiB' },
      weight: { prompt: ([first, last]) => `按第三节此刻的数字，共用 K、V 之后（h_kv = 1），头 1 在“${first}”这一行给“${last}”的配比是多少？（两位小数）`, label: '配比' },
    },
    check: '核对',
    reveal: '看答案',
    right: (answer) => `对了：内核算出的是 ${answer}。`,
    wrong: '还不对，再想想：缓存只存 K 和 V，每个 K/V 头 d_k 个数。',
    wrongWeight: '还不对：两个头读的是同一份 K，先在上面的配比图里找找。',
    answerIs: (answer) => `内核算出的是 ${answer}。`,
    unanswered: '先填一个数。',
    poemsTitle: '真模型能不能直接改成 GQA：第十节的诗歌模型',
    poemsLead: '不再训练，把第十节诗歌模型（3 层 × 8 个头）每一层的 K、V 权重按组取平均，组里的查询头都读这一份：和 GQA 是同一个模型。下面在那 31 首留出的唐诗上重算损失，再看每个头的眼光还剩几个。这就是共用 K/V 在“补训练”之前的代价。',
    poemsStart: '载入诗歌模型，逐个测 h_kv',
    poemsLoading: (percent) => `正在载入诗歌模型……${percent}%`,
    poemsMeasuring: (kv) => `正在测 h_kv = ${kv}……`,
    poemsCaption: (heads) => `每层 ${heads} 个头按编号相邻分组，每组 ${heads} ÷ h_kv 个（h_kv = 2 时头 1–${heads / 2} 一组、头 ${heads / 2 + 1}–${heads} 一组），组里的头共用它们 K/V 的平均；留出的唐诗，每个字的平均损失（nats）`,
    poemsKv: 'h_kv（每层 K/V 头数）',
    poemsGroup: '每组查询头',
    poemsLoss: '留出损失',
    poemsCost: '比原模型多',
    poemsRoles: '仍是原来眼光的头',
    poemsRolesOf: (kept, named) => `${kept} / ${named}`,
    poemsSays: (f) => {
      const worst = f.rows[f.rows.length - 1];
      const half = f.rows[1];
      return `只是取平均、不再训练，代价很大：h_kv = ${half.kvHeads} 时损失从 ${f.rows[0].loss.toFixed(3)} 涨到 ${half.loss.toFixed(3)}（多 ${half.cost.toFixed(2)} nats），原来有名字的 ${f.named} 个头只剩 ${half.kept} 个还是原来的眼光；一路降到 h_kv = ${worst.kvHeads}（MQA），损失是 ${worst.loss.toFixed(3)}，剩 ${worst.kept} 个。各头的 K 本来各看各的，平均之后谁也不像了——所以 Ainslie 等人转换之后还要再训练一小段（约原训练量的 5%）。`;
    },
    poemsError: '诗歌模型没能载入：',
  },
  en: {
    lead: 'The lesson ends at multi-head attention. But many courses, once multi-head attention is done, teach this next step: several pairs of glasses sharing one pair of lenses for K and V. Every head keeps its own Q lens — each asks its own question — but the K that gets searched and the V that gets taken are shared by a group of heads. One pair shared by all the heads is multi-query attention (MQA, Shazeer 2019); a pair for each of a few groups is grouped-query attention (GQA, Ainslie et al. 2023).',
    why: 'Why save on K and V? A model writing word by word keeps every earlier word\'s K and V (the KV cache), because each next word looks back at them. The more heads, the bigger that cache — the bill below counts it.',
    exampleTitle: '猫吃鱼: two heads, one K and V',
    exampleLead: 'Our old friend 猫吃鱼 again: h = 2, but only h_kv = 1 K and V. The conversion is Ainslie et al.\'s (2023): a group\'s K columns are averaged cell by cell, and its V columns likewise — here head 1\'s two K columns and head 2\'s two are added and halved. q keeps every number; both heads read the same K and V. The numbers follow section 3: change q, k, v, the mask or the scaling there and this follows.',
    kShared: 'Shared K (the mean of the heads\' K columns)',
    vShared: 'Shared V (the mean of the heads\' V columns)',
    headTitle: (head) => `Head ${head + 1}`,
    readsGroup: (group) => `reads K/V head ${group + 1}`,
    weightsBefore: 'Section 3\'s weights (its own K and V)',
    scores: 'Scores (shared K)',
    weights: 'Weights (shared K)',
    output: 'Head output (shared V)',
    changeTitle: 'What changed',
    change: changeEn,
    rowHeader: 'word',
    stale: 'Section 3\'s inputs cannot be computed right now; this section waits until they can:',
    billTitle: 'The bill, continued: parameters and the KV cache',
    billLead: 'Each layer\'s parameters (W_Q, W_K, W_V, Wᴼ) and the KV cache, every figure from the core\'s paramCount. The cache is counted per word over all layers, then times the context length N.',
    context: 'N (context length: words cached)',
    models: {
      lesson: 'The lesson\'s sizes: d_model = 4, h = 2, 1 layer, 32-bit',
      gpt2: 'GPT-2 small: d_model = 768, h = 12, 12 layers, 32-bit (GQA with h_kv = 4 as an example)',
      modern: 'A modern configuration: d_model = 4096, 32 query heads, 32 layers, 16-bit cache',
    },
    kind: (kind) => KINDS_EN[kind],
    columns: { kind: 'kind', kvHeads: 'h_kv', wq: 'W_Q', wkv: 'W_K + W_V', wo: 'Wᴼ', total: 'per layer', perToken: 'cache per word', forContext: (n) => `cache for ${n.toLocaleString('en-US')} words` },
    noGqa: 'With h = 2 there is no divisor between 1 and 2: only MHA and MQA here.',
    billNote: 'Only W_K, W_V and the cache shrink; W_Q and Wᴼ save nothing — every head still asks its own question, and the heads still meet to merge at the end.',
    groupsTitle: 'The pipeline: which heads read which K and V',
    groupsLead: 'Pick h and h_kv (h_kv must divide h): query heads of one colour read the same K and V. h_kv = h is section 3\'s multi-head attention; h_kv = 1 is MQA.',
    heads: 'h (query heads)',
    kvHeads: 'h_kv (K/V heads)',
    divisors: (list) => `divisors of h: ${list.join(', ')}`,
    queryHead: (head) => `Q head ${head + 1}`,
    kvHead: (group) => `K/V head ${group + 1}`,
    groupLine: (group, members) => `K/V head ${group + 1} ← ${members.map((m) => `Q head ${m + 1}`).join(', ')}`,
    groupKind: (heads, kvHeads) => (kvHeads === heads ? 'This is multi-head attention (MHA): one each.' : kvHeads === 1 ? 'This is multi-query attention (MQA): all heads share one.' : `This is grouped-query attention (GQA): ${kvHeads} groups of ${heads / kvHeads} heads, each group sharing one.`),
    approx: (bytes) => bytesText(bytes),
    questionsTitle: 'Try it: two questions, checked by the core',
    questions: {
      cache: { prompt: () => 'GPT-2 small (d_model = 768, h = 12, 12 layers, 32-bit) switched to MQA (h_kv = 1): how many KiB of K and V does one word cache over its 12 layers?', label: 'KiB' },
      weight: { prompt: ([first, last]) => `With section 3's numbers as they are now and K and V shared (h_kv = 1), what weight does head 1 give “${last}” on “${first}”'s row? (two decimals)`, label: 'weight' },
    },
    check: 'Check',
    reveal: 'Show the answer',
    right: (answer) => `Right: the core computes ${answer}.`,
    wrong: 'Not yet: the cache keeps only K and V, d_k numbers for each K/V head.',
    wrongWeight: 'Not yet: both heads read the same K; look for it in the weights above.',
    answerIs: (answer) => `The core computes ${answer}.`,
    unanswered: 'Type a number first.',
    poemsTitle: 'Can a real model just be made GQA? §10’s poetry model',
    poemsLead: 'Without any more training, average the K and V weights of §10’s poetry model (3 layers × 8 heads) within groups of heads, layer by layer, and let every query head of a group read the mean: that is the same model as GQA. Below, the held-out loss is measured again on the 31 held-out Tang poems, and each head’s view checked: what sharing K and V costs before any uptraining.',
    poemsStart: 'Load the poetry model and measure each h_kv',
    poemsLoading: (percent) => `Loading the poetry model… ${percent}%`,
    poemsMeasuring: (kv) => `Measuring h_kv = ${kv}…`,
    poemsCaption: (heads) => `A layer’s ${heads} heads are grouped in order, ${heads} ÷ h_kv adjacent heads a group (at h_kv = 2, heads 1–${heads / 2} and heads ${heads / 2 + 1}–${heads}), and each group shares the mean of its heads’ K and V; held-out Tang poems, mean loss a character (nats)`,
    poemsKv: 'h_kv (K/V heads a layer)',
    poemsGroup: 'query heads a group',
    poemsLoss: 'held-out loss',
    poemsCost: 'above the model’s own',
    poemsRoles: 'heads keeping their view',
    poemsRolesOf: (kept, named) => `${kept} of ${named}`,
    poemsSays: (f) => {
      const worst = f.rows[f.rows.length - 1];
      const half = f.rows[1];
      return `Averaging alone, with no training after it, costs a lot: at h_kv = ${half.kvHeads} the loss rises from ${f.rows[0].loss.toFixed(3)} to ${half.loss.toFixed(3)} (${half.cost.toFixed(2)} nats more), and of the ${f.named} heads with a named view only ${keeps(half.kept, 'it')}; down at h_kv = ${worst.kvHeads} (MQA) the loss is ${worst.loss.toFixed(3)} and ${keeps(worst.kept, worst.kept === 1 ? 'its' : 'theirs')}. Each head’s K looked its own way, and the mean looks like none of them: that is why Ainslie et al. train the converted model a little more (about 5% of the original training).`;
    },
    poemsError: 'The poetry model could not load: ',
  },
};
