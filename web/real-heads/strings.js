// What §10's frame says, Chinese first and English second (ctx.text.realHeads in §10's module): whose heads to show.

export const REAL_HEADS_TEXT = {
  zh: {
    sourceTitle: '看哪个模型的头',
    sourcePoems: '古诗模型（随课程提供）',
    sourceGpt2: 'GPT-2（打开你自己的文件）',
  },
  en: {
    sourceTitle: 'Whose heads to show',
    sourcePoems: 'The poetry model (ships with the lesson)',
    sourceGpt2: 'GPT-2 (open your own file)',
  },
};
