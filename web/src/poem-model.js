// loadPoemModel: the lesson's poetry model, its tokenizer and its card. The only module of web/src/ that names
// web/poems/, and only the two files that web/poems/build/train.js wrote, never its code: the data sits below the API
// as web/dist's wasm does, while web/poems/'s code stands on the API (web/README.md: "A floor imports only from the floors below it").
import { MHAError, arrayLength, checkOptions, tokenIds } from './checks.js';
import { fetchFile } from './fetch-file.js';

// The poetry model of loadPoemModel: URLs in the form bundlers follow, so an app's build copies the files.
const POEM_MODEL_URL = new URL('../poems/poems.safetensors', import.meta.url);
const POEM_CARD_URL = new URL('../poems/poems.card.json', import.meta.url);

const MAX_DECODE = 2 ** 24; // ids a decode takes: far more than any text the page writes, 64 MB of Int32

/** The poetry model from `options` { model, card } (URLs; by default the shipped files), loaded on `mha`. */
export async function loadPoemModel(mha, options) {
  const { model: modelUrl = POEM_MODEL_URL, card: cardUrl = POEM_CARD_URL } = checkOptions('loadPoemModel', options, ['model', 'card']);
  const [bytes, cardBytes] = await Promise.all([fetchBytes(modelUrl), fetchBytes(cardUrl)]);
  let card;
  try {
    card = JSON.parse(new TextDecoder().decode(cardBytes));
  } catch (error) {
    throw new MHAError('LOAD_FAILED', `the poetry model's card is not JSON: ${error.message}`);
  }
  const model = await mha.loadModel(bytes);
  let vocabulary;
  try {
    vocabulary = JSON.parse(model.metadata.vocabulary);
  } catch {
    // checked below
  }
  // Written as a plain decimal by web/poems/build/train.js; Number() would also take " 4 " or "1e0".
  const unknownText = model.metadata.unknown_id;
  const unknownId = /^(0|[1-9][0-9]{0,8})$/.test(unknownText) ? Number(unknownText) : NaN;
  if (!Array.isArray(vocabulary) || vocabulary.length !== model.config.vocabSize || !vocabulary.every((token) => typeof token === 'string') ||
      !Number.isInteger(unknownId) || unknownId < 0 || unknownId >= vocabulary.length) {
    model.dispose();
    throw new MHAError('BAD_MODEL', `the poetry model's __metadata__ needs "vocabulary", a JSON list of its ${model.config.vocabSize} tokens, and "unknown_id", the token of characters outside it`);
  }
  const ids = new Map(vocabulary.map((token, id) => [token, id]));
  return {
    model,
    encode: (text) => Int32Array.from(String(text), (char) => ids.get(char) ?? unknownId),
    // Checked as the model's own ids are: vocabulary[id] would read 'constructor' or 'length' off the array.
    decode: (tokens) => Array.from(tokenIds('ids', tokens, arrayLength('ids', tokens, MAX_DECODE), vocabulary.length, 'TOKEN_RANGE'),
      (id) => vocabulary[id]).join(''),
    card,
  };
}

/** A file's bytes from its URL; LOAD_FAILED when it cannot be had. */
const fetchBytes = (address) => fetchFile(address, async (response) => new Uint8Array(await response.arrayBuffer()));
