// Where a teacher finds GPT-2 small's file, and §10's GPT-2 example sentences, English since GPT-2 learnt
// English: each sentence shows a kind of head that
// interpretability research found in GPT-2 small, and names one such head, [layer, head] counted from 0 as the
// papers count them (previous token 4.11; induction 5.5; the name mover 9.9 of "Interpretability in the Wild",
// Wang et al. 2022). The sink shows in most heads, so it names none.

/** Where the checkpoint is: the file page (its download button, its SHA256), the file itself, and a mirror's. */
export const GPT2_FILE_PAGE = 'https://huggingface.co/openai-community/gpt2/blob/main/model.safetensors';
export const GPT2_FILE_URL = 'https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors';
export const GPT2_MIRROR_URL = 'https://hf-mirror.com/openai-community/gpt2/resolve/main/model.safetensors';

export const GPT2_EXAMPLES = [
  { name: 'previous', text: 'The quick brown fox jumps over the lazy dog, and the dog goes back to sleep.', head: [4, 11] },
  { name: 'induction', text: 'Mr and Mrs Dursley lived in a small house with a very large car. Mr and Mrs Dursley', head: [5, 5] },
  { name: 'sink', text: 'The teacher opened the book and read the first page aloud to the whole class.', head: null },
  { name: 'nameMover', text: 'When Mary and John went to the store, John gave a drink to', head: [9, 9] },
];
