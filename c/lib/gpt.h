/* gpt.h — a small GPT-2: load it from a .safetensors file, run it, train it.

   OVERVIEW
   A decoder-only transformer with GPT-2's architecture, so a page can show
   real heads of a real (small) language model:

       x_0      = wte[t_r] + wpe[r]                      token + position embedding (d)
       for each block i = 0 .. layers-1 (pre-LayerNorm):
         a      = LN_1(x)                                LayerNorm, ε = 1e-5
         q|k|v  = a · c_attn.W + c_attn.b                d × 3d, q, k, v in that order
         heads  = causal multi-head attention of q, k, v  (the core's, mha_internal.h)
         x      = x + heads · attn.c_proj.W + attn.c_proj.b
         m      = LN_2(x)
         x      = x + GELU(m · c_fc.W + c_fc.b) · mlp.c_proj.W + mlp.c_proj.b   (4d wide)
       logits   = LN_f(x) · wteᵀ                          tied to the token embedding
   GELU is GPT-2's tanh form, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
   Weights are Hugging Face GPT-2's tensors, named and laid out as in its
   .safetensors files (x·W + b, W stored d_in × d_out):
       wte.weight [vocab, d]   wpe.weight [context, d]   ln_f.weight, ln_f.bias [d]
       h.{i}.ln_1.weight/bias [d]   h.{i}.attn.c_attn.weight [d, 3d], .bias [3d]
       h.{i}.attn.c_proj.weight [d, d], .bias [d]   h.{i}.ln_2.weight/bias [d]
       h.{i}.mlp.c_fc.weight [d, 4d], .bias [4d]    h.{i}.mlp.c_proj.weight [4d, d], .bias [d]
   each optionally prefixed "transformer."; F32 or F16. Other tensors (GPT-2's
   attn.bias masks, lm_head.weight) are checked like all bytes but not used.
   Layers, d, context and vocab come from the shapes. The head count comes from
   the caller, else the metadata's "n_head" (a string, as safetensors metadata
   are), else GPT-2's own sizes (d 768 → 12, 1024 → 16, 1280 → 20, 1600 → 25).

   Training (native, for building the lesson's model): next-token cross-entropy
   on a batch of token sequences, the analytic backward pass of every block
   (embeddings, LayerNorms, attention, biases, GELU MLP, residuals, the tied
   read-out) and AdamW with global-norm gradient clipping.

   EXAMPLE
       gpt_model *model;
       if (gpt_load(bytes, size, 0, &model) != MHA_OK) puts(mha_last_error());
       const int tokens[3] = {464, 3797, 3332};
       if (gpt_forward(model, tokens, 3, NULL) != MHA_OK) puts(mha_last_error());
       const float *a, *logits;
       gpt_attention(model, 0, 1, &a);                 // block 0, head 1: 3×3 weights
       gpt_logits(model, &logits);                     // 3 × vocab
       gpt_step(model, 318, NULL);                     // a fourth token: only its row is computed
       gpt_rewind(model, 2);                           // back to the first two, to go on differently
       gpt_model_destroy(model);

       // training from scratch
       gpt_config config = {.layers = 2, .heads = 4, .d_model = 128, .context = 64, .vocab = 5000};
       gpt_model_create(&config, 7, &model);
       gpt_train_desc desc = gpt_train_default_desc(16, 65);   // 16 sequences of 65 tokens
       gpt_trainer *trainer;
       gpt_trainer_create(model, &desc, &trainer);
       double loss;
       gpt_train_step(trainer, batch_tokens, 16, 65, 3e-4f, &loss);
       gpt_save(model, "F32", NULL, 0, NULL, 0, &size);        // the bytes needed, then write them

   MEMORY
   Loading or creating a model allocates everything its forward will use,
   sized for T = `context` tokens, or fewer when gpt_load_begin is given
   max_tokens: the parameters (fp32), one block's activations, every block's
   queries, keys and values (layers·T·3d floats) and its keys again, each
   head's transposed (layers·T·d: what a step's scores read in place),
   attention weights (layers·heads·T²) and the logits (T·vocab). GPT-2 small's buffers take
   0.9 GB for its 1,024 tokens and 25 MB for 64. gpt_forward, gpt_step, gpt_attention and gpt_logits
   allocate nothing; pointers they hand out belong to the model and hold the
   last forward (gpt_attention's until its next call: the maps are kept at
   max_tokens×max_tokens, so that a longer forward moves no row, and one is
   packed L×L when asked for). A loader copies each used tensor's bytes once, straight into the
   model's parameters (gpt_load_begin / gpt_loader_copy / gpt_load_finish, so
   the file itself need never be in the same memory); F16 is widened in place.
   A trainer allocates, at create, the gradients, AdamW's moments and the
   activations of one batch of every block; steps allocate nothing. A trainer
   borrows its model: destroy the trainer first.

   ERRORS
   Every call that can fail returns an mha_status (mha.h) and never aborts; the
   sentence is in mha_last_error(). A file that is not a well-formed GPT-2
   .safetensors gives MHA_ERR_BAD_MODEL naming the problem: the broken header,
   a missing or misshaped tensor, an unknown dtype, offsets past the end or
   overlapping, a weight that is NaN or infinite. A token id outside
   0 .. vocab-1 gives MHA_ERR_TOKEN_RANGE, more tokens than the context
   MHA_ERR_SEQ_TOO_LONG. A forward that fails leaves no result (NO_FORWARD).

   NUMBERS
   float32 parameters and arithmetic; LayerNorm statistics and losses in
   double where it matters (sums of a row, of a batch). Softmax subtracts the
   row maximum; masked attention weights are exactly 0. The matrix products run
   the core's SIMD kernels (kernels.c). A model loaded from a file keeps its
   blocks' four matrices as the kernels' column panels, so that a decoding
   step reads every weight once, in memory's order (and 4·d² floats more while
   so, 9.4 MB for GPT-2 small); gpt_tensor, gpt_model_params, gpt_save and a
   trainer lay them out row-major again, for good. Either way, the same bits.
   Limits: the model with its forward buffers must fit GPT_MAX_MODEL_BYTES
   (GPT-2 small at its full context of 1024 needs about 1.5 GB: 0.5 GB of weights, 0.6 GB of attention weights,
   0.1 GB of queries, keys and values, 0.2 GB of logits). */
#ifndef GPT_H
#define GPT_H

#include <stddef.h>
#include <stdint.h>

#include "mha.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPT_MAX_MODEL_BYTES ((double)(7u << 28)) /* 1.75 GiB, as for one mha layer */
#define GPT_MAX_LAYERS 256
#define GPT_MAX_D 8192
#define GPT_MAX_CONTEXT 8192
#define GPT_MAX_VOCAB (1 << 20)

typedef struct gpt_config {
    int layers;  /* blocks, GPT-2's n_layer */
    int heads;   /* n_head; divides d_model */
    int d_model; /* n_embd, d */
    int context; /* n_positions: the longest sequence */
    int vocab;   /* vocab_size */
} gpt_config;

typedef struct gpt_model gpt_model;
typedef struct gpt_loader gpt_loader;
typedef struct gpt_trainer gpt_trainer;

/* A key and value of a file's __metadata__ (UTF-8 strings). */
typedef struct gpt_metadata {
    const char *key, *value;
} gpt_metadata;

/* ---- loading ---- */

/* The whole file in memory. heads 0: from the metadata or GPT-2's sizes. */
mha_status gpt_load(const void *bytes, size_t size, int heads, gpt_model **out);

/* The same in three steps, for a file that lives elsewhere (web/src/gpt-model.js
   keeps it in JavaScript): begin with the file's first bytes (at least the
   8 + N of its header; gpt_header_bytes says how many), copy the byte range of
   each of the loader's tensors into the address it gives, then finish.
   max_tokens: the longest forward the model will run, its buffers sized for
   it (or for the context, if that is shorter); 0 = the context. A longer
   forward is SEQ_TOO_LONG. */
uint64_t   gpt_header_bytes(const unsigned char first8[8]); /* 0 when the length is absurd */
mha_status gpt_load_begin(const void *head, size_t head_size, uint64_t file_size, int heads, int max_tokens,
                          gpt_loader **out);
int        gpt_loader_copies(const gpt_loader *loader);
mha_status gpt_loader_copy(gpt_loader *loader, int i, uint64_t *file_offset, size_t *bytes, void **dest);
mha_status gpt_load_finish(gpt_loader *loader, gpt_model **out); /* frees the loader, even on failure */
void       gpt_loader_destroy(gpt_loader *loader);               /* to give up half-way; NULL is fine */

/* A model of this shape with GPT-2's initialisation from np.random.RandomState(seed):
   weights N(0, 0.02²), the two c_proj weights N(0, (0.02/√(2·layers))²), biases 0,
   LayerNorm scales 1. */
mha_status gpt_model_create(const gpt_config *config, unsigned seed, gpt_model **out);
void       gpt_model_destroy(gpt_model *model); /* NULL is fine */

const gpt_config *gpt_model_config(const gpt_model *model);
int        gpt_model_metadata_count(const gpt_model *model);
const gpt_metadata *gpt_model_metadata(const gpt_model *model, int i); /* NULL past the end */

/* ---- the forward pass ---- */

/* len tokens (1 .. context); enabled: layers·heads bytes, 0 switches head
   [layer·heads + head] off (its output becomes zeros before c_proj), NULL = all on. */
mha_status gpt_forward(gpt_model *model, const int *tokens, int len, const unsigned char *enabled);

/* The same result, bit for bit, computed only from the first position where
   tokens (or the heads on) part from the last good forward's: the rows before
   it, their keys and values in every block, their attention and logits, are
   that forward's. In a causal model row r depends on tokens 0 .. r alone, so
   a text typed a token at a time costs one new row per block, not L (a key and
   value cache, as models generate text). A trainer's step and every call of
   gpt_tensor or gpt_model_params (which hand out parameters to write) make the
   next forward compute every row; so does a forward that failed. Parameters
   written through a pointer kept from before the last forward are not
   noticed: call gpt_forward (or gpt_model_params) after writing them. */
mha_status gpt_forward_reusing(gpt_model *model, const int *tokens, int len, const unsigned char *enabled);
int        gpt_model_reused(const gpt_model *model); /* rows the last forward took from the one before */
int        gpt_model_len(const gpt_model *model); /* L of the last good forward, 0 before */
int        gpt_model_max_tokens(const gpt_model *model); /* the longest forward it was loaded (or reserved) for */
/* Drops the last forward's results, as a failed forward does (NO_FORWARD until
   the next one, which computes every row): for a caller whose own checks
   refused a forward. */
void       gpt_model_forget(gpt_model *model); /* NULL is fine */

/* Decoding with the key-value cache: the model's buffers (sized by max_tokens)
   keep every block's keys and values and every row's attention and logits, so
   a step computes only the new position, O(weights + layers·heads·L), where a
   forward of the whole text costs L times the weights and the maps L².
   A product of one row reads each weight once, in order, at memory's speed. */
/* Appends `token` to the last good forward's tokens (or starts a text, after
   none) and computes its row: what gpt_forward of the whole text gives, every
   block's q|k|v and attention to the bit; its logits row is summed another
   way, token by token of wte as memory streams it, so it may differ from the
   forward's in the last bits (within 2e-6 of the largest logit).
   enabled as in gpt_forward (heads other than the last forward's: every row is
   computed again). A full cache is SEQ_TOO_LONG and a token outside the
   vocabulary TOKEN_RANGE, both leaving the cache as it was; any other failure
   leaves no result, as a forward's does. */
mha_status gpt_step(gpt_model *model, int token, const unsigned char *enabled);
/* Keeps the first len (0 .. gpt_model_len) tokens and their rows, for a
   text edited back to there; the next step or forward goes on from them. */
mha_status gpt_rewind(gpt_model *model, int len);
/* Sizes the buffers for forwards of up to max_tokens (at most the context)
   afresh; 0 frees them (forwards are SEQ_TOO_LONG until the next reserve).
   Drops the last forward's results. On failure the buffers are freed. */
mha_status gpt_model_reserve(gpt_model *model, int max_tokens);
mha_status gpt_attention(gpt_model *model, int layer, int head, const float **out); /* L×L, until the next call */
mha_status gpt_logits(gpt_model *model, const float **out);                         /* L×vocab */
/* Block `layer`'s queries, keys and values, L×3d: row r is q | k | v of
   position r, head i's slice of each at i·d_k .. (i+1)·d_k - 1 (d_k = d/heads).
   Head i's score of row r against key j is q·k / √d_k before its softmax. */
mha_status gpt_qkv(gpt_model *model, int layer, const float **out);

/* ---- parameters and saving ---- */

/* Tensor i (0 .. gpt_tensor_count-1, in the order above: wte, wpe, each
   block's twelve, ln_f's two): its GPT-2 name, values (rows×cols, row-major;
   a vector is 1×n) and where it starts in the flat parameter array. */
int        gpt_tensor_count(const gpt_model *model);
mha_status gpt_tensor(gpt_model *model, int i, const char **name, float **values, int *rows, int *cols, size_t *offset);
float     *gpt_model_params(gpt_model *model, size_t *count); /* every tensor, back to back */

/* Writes the model as a .safetensors file, its tensors in the order above as
   dtype "F32" or "F16" (rounded to the nearest half, ties to even), with
   "n_head", the model's own metadata and `extra` (which wins over both) in
   __metadata__, in that order. *size gets the file's length; with out NULL
   (or capacity too small: MHA_ERR_TOO_LARGE) nothing is written, so call once
   for the size, then with a buffer. Saving a loaded model with no extra gives
   its file's bytes back when the file was written so. */
mha_status gpt_save(const gpt_model *model, const char *dtype, const gpt_metadata *extra, int extra_count,
                    unsigned char *out, size_t capacity, size_t *size);

/* ---- training ---- */

typedef struct gpt_train_desc {
    int batch;     /* sequences per step, at most */
    int seq_len;   /* tokens per sequence, at most, 2 .. context+1: positions
                      0 .. len-2 read, each predicts the next token */
    float beta1, beta2, eps; /* AdamW */
    float weight_decay;      /* decoupled, on the matrices and embeddings only */
    float clip;              /* global gradient norm limit; 0 = none */
    float dropout;           /* in a training step (not gpt_train_loss), the chance that a value of the
                                embeddings' sum or of a block's attention or MLP output is zeroed, the rest
                                scaled by 1/(1 - dropout): 0 (none) .. below 1 */
    unsigned dropout_seed;   /* the masks are a function of it, the step count, the place and the value's
                                index: the same on any thread count, and after gpt_trainer_set_steps */
} gpt_train_desc;

/* batch, seq_len as given; beta1 0.9, beta2 0.95, eps 1e-8, weight decay 0.1, clip 1, no dropout. */
gpt_train_desc gpt_train_default_desc(int batch, int seq_len);

mha_status gpt_trainer_create(gpt_model *model, const gpt_train_desc *desc, gpt_trainer **out);
void       gpt_trainer_destroy(gpt_trainer *trainer); /* NULL is fine */

/* tokens: count sequences of len tokens each (count·len ints, row-major),
   1 <= count <= batch, 2 <= len <= seq_len. The loss is the mean over the
   count·(len-1) predictions of -log p(next token). */

/* The loss and nothing else (evaluation): never dropped out. */
mha_status gpt_train_loss(gpt_trainer *trainer, const int *tokens, int count, int len, double *loss);
/* The loss and its gradient (gpt_trainer_grads), without updating: for gradient checks. With dropout,
   through the masks of the next gpt_train_step. */
mha_status gpt_train_loss_grad(gpt_trainer *trainer, const int *tokens, int count, int len, double *loss);
/* One AdamW step with step size lr; *loss gets the loss before the update.
   A loss or gradient that is not finite gives MHA_ERR_NOT_FINITE and leaves
   the parameters and moments as they were. */
mha_status gpt_train_step(gpt_trainer *trainer, const int *tokens, int count, int len, float lr, double *loss);

const float *gpt_trainer_grads(const gpt_trainer *trainer); /* laid out as gpt_model_params */
long       gpt_trainer_steps(const gpt_trainer *trainer);
double     gpt_trainer_grad_norm(const gpt_trainer *trainer); /* of the last step, before clipping */

/* What a checkpoint needs besides the parameters to go on exactly as an unbroken run: AdamW's first and
   second moments (*m, *v: laid out as gpt_model_params, owned by the trainer, writable) and the steps taken.
   gpt_trainer_set_steps sets the count and AdamW's bias corrections (beta^t, multiplied up as the steps do)
   as after that many steps; write the moments and parameters back, then set the steps, then train on. */
mha_status gpt_trainer_moments(gpt_trainer *trainer, float **m, float **v);
mha_status gpt_trainer_set_steps(gpt_trainer *trainer, long steps);

#ifdef __cplusplus
}
#endif
#endif /* GPT_H */
