// The page's one loadAttention: the package's entry (attention.js) and the widget both start the core here, so an
// app or a page that uses both runs one core. The widget imports this module alone, without the model loaders
// that attention.js adds (instance.js modelLoaders). A fresh loader with a core of its own: attentionLoader().
import { attentionLoader } from './load.js';

export const loadAttention = attentionLoader();
