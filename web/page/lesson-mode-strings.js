// The words of lesson mode's bar (web/page/lesson-mode.js), Chinese first and English second.
export const LESSON_MODE_TEXT = {
  zh: {
    bar: '课堂模式',
    previous: '上一屏',
    next: '下一屏',
    leave: '退出课堂模式',
    leaveShort: '退出',
    position: (part, parts) => `${part} / ${parts}`,
    screen: (screen, screens) => `第 ${screen} 屏，共 ${screens} 屏`,
  },
  en: {
    bar: 'Lesson mode',
    previous: 'Previous screen',
    next: 'Next screen',
    leave: 'Leave lesson mode',
    leaveShort: 'Leave',
    position: (part, parts) => `${part} / ${parts}`,
    screen: (screen, screens) => `screen ${screen} of ${screens}`,
  },
};
