// The lesson's two numpy programs (§6), quoted as the lesson gives them, and what each prints, rebuilt from
// the attention core and the numpy-compatible generator. The lesson's text lost the programs' indentation;
// it is restored here as Python needs it (the bodies of the loop, the function, the class and its methods),
// and not a character else is changed. tests/fixtures/lesson-program-{1,2}.py are these programs with their
// default seeds, and the .out files beside them what Python 3 with numpy prints for them.
import { runDemoShapes, runDemoClass } from './core.js';
import { grouped, range } from '../ui/section.js';

/** Program 1: the bill in numbers, then the shape chain of a 2-head layer (seed 10). */
const PROGRAM_ONE = String.raw`# ============================================================
# 【演示目标】① 用数字验证"多头是切分不是重复计算":朴素 h 套
# 完整眼镜 vs 原论文切分,参数量差多少;② 形状体检:X 过 h=2 头
# 的完整形状链,每步形状对上课文手算。
# 【思路】
# 1. d_model=768(GPT-2)、h=12:
# 朴素 = 12 套 3×(768×768);切分 = 12 套 3×(768×64) + W^O(768×768)
# 2. 形状链:X(3 词×8 维) → 切 2 头 → 每头 Q_i (3,4) → 配比 (3,3)
# → 头上下文 (3,4) → concat (3,8) → W^O(8,8) → 输出 (3,8)
# 读法: 两种做法参数量差 9 倍;切分总量与「单头+W^O」分毫不差——
# 多头 = 免费的多眼光。形状链与「猫吃鱼」手算逐格对上。
# ============================================================
import numpy as np
d_model, h = 768, 12
naive = h * 3 * d_model * d_model # h 套完整眼镜
paper = h * 3 * d_model * (d_model // h) + d_model * d_model # 切分 + W^O
print("朴素 h 套完整眼镜:", format(naive, ","), "参数")
print("原论文 切分+WO :", format(paper, ","), "参数 ← 与单头+输出投影相等:", paper == 4 * d_model * d_model)
print("单头+WO 应为 :", format(4 * d_model * d_model, ","), "\n")
# ---- 形状体检(玩具:d_model=8, h=2, d_k=4)----
rng = np.random.RandomState(10)
X = rng.randn(3, 8) # 「猫吃鱼」,3 词 × 8 维
d_k = 8 // 2 # 每头维度 = d_model ÷ h = 4
Wq, Wk, Wv = (rng.randn(8, 8) * 0.5 for _ in range(3)) # 三个大矩阵(真实实现就这么存)
heads = []
for i in range(2):
    Q_i = X @ Wq[:, i*4:(i+1)*4] # 按列切给第 i 头:Q_i (3,4)
    K_i = X @ Wk[:, i*4:(i+1)*4]
    V_i = X @ Wv[:, i*4:(i+1)*4]
    S = Q_i @ K_i.T / np.sqrt(d_k) # 每头独立打分
    S[np.triu(np.ones((3, 3), dtype=bool), 1)] = -1e9 # 第 9 课掩码,每头都要戴
    e = np.exp(S - S.max(axis=1, keepdims=True))
    A_i = e / e.sum(axis=1, keepdims=True) # 每头独立 softmax → (3,3)
    heads.append(A_i @ V_i) # 每头独立加权 V → (3,4)
    print("头%d: Q_i%s A_i%s 输出%s" % (i+1, Q_i.shape, A_i.shape, heads[-1].shape))
Z = np.concatenate(heads, axis=1) # concat → (3,8)
Wo = rng.randn(8, 8) # 融合矩阵
print("concat:", Z.shape, "→ @ W^O(8,8) →", (Z @ Wo).shape, " ← 进出同形状")
`;

/** Program 2: a GPT-style multi-head attention class, and its two heads' weights side by side (seed 11). */
const PROGRAM_TWO = String.raw`# ============================================================
# 【演示目标】把多头注意力焊成类(GPT 同款骨架,含第 9 课掩码):
# 大矩阵乘一次 → 按头切 → 每头四步 → concat → W^O;并看两个头
# 在同一句话上的配比差别(各有所爱——虽然此时还只是随机差异)。
# 【思路】
# A. 类:Wq/Wk/Wv 存成完整 (d_model × d_model) 大矩阵(真实做法),
# 前向时 reshape 成 (h, d_model, d_k)——一次乘完再切,省 h 次小乘法
# B. 体检:X(4 词×8 维), h=2 → 打印每头的配比表、行和、输出形状
# C. 观察:头1/头2 配比逐格不同;但随机权重下的差异没有语义,
# 训练后才会分化出真正的「指代头」「语法头」
# 读法: 每头配比表上三角全 0(第 9 课掩码在每头都工作);两头分布
# 肉眼可见不同;输出形状与输入相同——多头也不改形状,只换看法。
# ============================================================
import numpy as np
rng = np.random.RandomState(11)
def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
class MultiHeadAttention:
    """多头因果注意力:GPT 每一层的同款骨架(Vizuara 1.16 的 numpy 版)"""
    def __init__(self, d_model, h):
        assert d_model % h == 0, "d_model 必须能被头数整除(切分的前提!)"
        self.h, self.d_model = h, d_model
        self.d_k = d_model // h # 每头维度 = d_model ÷ h
        self.Wq = rng.randn(d_model, d_model) * 0.4 # 大矩阵(内含全部头的眼镜)
        self.Wk = rng.randn(d_model, d_model) * 0.4
        self.Wv = rng.randn(d_model, d_model) * 0.4
        self.Wo = rng.randn(d_model, d_model) * 0.4 # 输出融合
    def forward(self, X):
        L, d = X.shape
        # 一次大乘法 + 切头:reshape 成 (h, L, d_k)——比循环 h 次小乘法快
        Q = (X @ self.Wq).reshape(L, self.h, self.d_k).transpose(1, 0, 2) # (h, L, d_k)
        K = (X @ self.Wk).reshape(L, self.h, self.d_k).transpose(1, 0, 2)
        V = (X @ self.Wv).reshape(L, self.h, self.d_k).transpose(1, 0, 2)
        S = Q @ K.transpose(0, 2, 1) / np.sqrt(self.d_k) # 每头独立打分 → (h, L, L)
        mask = np.triu(np.ones((L, L), dtype=bool), 1) # 第 9 课:每头都要戴掩码
        S[:, mask] = -1e9
        A = softmax(S, axis=-1) # 每头独立 softmax → (h, L, L)
        heads = A @ V # 每头独立加权 V → (h, L, d_k)
        Z = heads.transpose(1, 0, 2).reshape(L, d) # concat → (L, d_model)
        return Z @ self.Wo, A # W^O 融合 + 配比表(供观察)
X = rng.randn(4, 8) # 4 词 × 8 维
mha = MultiHeadAttention(d_model=8, h=2)
np.set_printoptions(precision=2, suppress=True)
Z, A = mha.forward(X)
print("头 1 配比表(4×4,上三角=未来=0):")
print(A[0])
print("头 2 配比表:")
print(A[1])
print("两头同格对比(第 3 行):", A[0][3].round(2), "vs", A[1][3].round(2), "← 各有所爱(随机版)")
total = sum(v.size for v in mha.__dict__.values() if hasattr(v, "size"))
print("参数量账:Wq/Wk/Wv/Wo 各", mha.Wq.size, "个 → 共", total, "= 4×d_model² =", 4 * 64, "✓")
print("输出 Z:", Z.shape, "—— 进 (4,8) 出 (4,8),形状不变量依旧")
`;

/** A program's text with its RandomState seed set to `seed`. */
const withSeed = (program, seed) => program.replace(/RandomState\(\d+\)/, `RandomState(${seed})`);

export const programOne = (seed) => withSeed(PROGRAM_ONE, seed);
export const programTwo = (seed) => withSeed(PROGRAM_TWO, seed);

/**
 * numpy's way of printing with precision=2, suppress=True: each value rounded to 2 decimals with
 * trailing zeros trimmed ("1." "0.5" "0.45"), then padded so the decimal points line up.
 */
export function numpyFormat(values, rows, cols) {
  const texts = Array.from(values, (v) => v.toFixed(2).replace(/0+$/, ''));
  const [ints, fracs] = [texts.map((s) => s.split('.')[0]), texts.map((s) => s.split('.')[1])];
  const left = Math.max(...ints.map((s) => s.length));
  const right = Math.max(...fracs.map((s) => s.length));
  const cell = (i) => `${ints[i].padStart(left)}.${fracs[i].padEnd(right)}`;
  const row = (r) => `[${range(cols).map((c) => cell(r * cols + c)).join(' ')}]`;
  if (rows === 1) return row(0);
  return `[${range(rows).map((r) => (r ? ' ' : '') + row(r)).join('\n')}]`;
}

/** A shape as Python prints a tuple: (3, 4). */
const shape = (...dims) => `(${dims.join(', ')})`;

/**
 * What program 1 prints, as Python prints it (every line ends with a newline): the GPT-2 bill from the
 * core's paramCount, then the shapes of the core's forward on the seed's random numbers.
 */
export function programOneOutput(mha, seed) {
  const gpt = mha.paramCount({ dModel: 768, heads: 12 });
  const single = mha.paramCount({ dModel: 768, heads: 1 }).split; // 4·d_model², as the program checks
  const r = runDemoShapes(mha, seed);
  return [
    `朴素 h 套完整眼镜: ${grouped(gpt.naive)} 参数`,
    `原论文 切分+WO : ${grouped(gpt.split)} 参数 ← 与单头+输出投影相等: ${gpt.split === single ? 'True' : 'False'}`,
    // print(…, "\n") ends the line with a space and adds an empty line.
    `单头+WO 应为 : ${grouped(single)} `,
    '',
    ...range(r.heads).map((i) => `头${i + 1}: Q_i${shape(r.L, r.dK)} A_i${shape(r.L, r.L)} 输出${shape(r.L, r.dK)}`),
    `concat: ${shape(r.L, r.dModel)} → @ W^O(8,8) → ${shape(r.L, r.dModel)}  ← 进出同形状`,
    '',
  ].join('\n');
}

/**
 * What program 2 prints, as Python prints it, and the core's forward it comes from (its weights are
 * drawn as heatmaps beside it).
 */
export function programTwoOutput(mha, seed) {
  const r = runDemoClass(mha, seed);
  const total = mha.paramCount({ dModel: r.dModel, heads: r.heads }).split;
  const perMatrix = r.dModel * r.dModel;
  const row3 = (head) => r.attention[head].slice(3 * r.L, 4 * r.L);
  const text = [
    '头 1 配比表(4×4,上三角=未来=0):',
    numpyFormat(r.attention[0], r.L, r.L),
    '头 2 配比表:',
    numpyFormat(r.attention[1], r.L, r.L),
    `两头同格对比(第 3 行): ${numpyFormat(row3(0), 1, r.L)} vs ${numpyFormat(row3(1), 1, r.L)} ← 各有所爱(随机版)`,
    `参数量账:Wq/Wk/Wv/Wo 各 ${perMatrix} 个 → 共 ${total} = 4×d_model² = ${4 * perMatrix} ✓`,
    `输出 Z: ${shape(r.L, r.dModel)} —— 进 (4,8) 出 (4,8),形状不变量依旧`,
    '',
  ].join('\n');
  return { text, result: r };
}
