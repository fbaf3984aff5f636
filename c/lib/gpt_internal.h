/* gpt_internal.h — shared by the GPT model's modules, not part of the public API (gpt.h):
     gpt_model.c    the tensor table, shape checks, memory, random initialisation
     gpt_file.c     loading from and saving to .safetensors (through safetensors.c)
     gpt_forward.c  the forward pass and its results
     gpt_train.c    the backward pass and AdamW */
#ifndef GPT_INTERNAL_H
#define GPT_INTERNAL_H

#include "gpt.h"

#include <stdint.h>

/* A block's tensors, in file order; tensor index = GPT_T_BLOCKS + layer·GPT_B_COUNT + which. */
enum gpt_block_tensor {
    GPT_B_LN1_W, GPT_B_LN1_B, GPT_B_ATTN_W, GPT_B_ATTN_B, GPT_B_PROJ_W, GPT_B_PROJ_B,
    GPT_B_LN2_W, GPT_B_LN2_B, GPT_B_FC_W, GPT_B_FC_B, GPT_B_OUT_W, GPT_B_OUT_B, GPT_B_COUNT
};
enum { GPT_T_WTE, GPT_T_WPE, GPT_T_BLOCKS }; /* ln_f's weight and bias come after the blocks */

#define GPT_LN_EPS 1e-5f

/* SplitMix64's finaliser: every bit of z stirred into every bit of the result. */
static inline uint64_t gpt_mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Dropout's mask: value i (row · d + column) of a site is kept at a step unless its hash falls under
   `dropped`, gpt_dropout_threshold of the rate (gpt_dropout_key gives the step and site's key). */
static inline uint32_t gpt_dropout_threshold(float rate) { return (uint32_t)(rate * 4294967296.0); } /* rate · 2³² */
static inline uint64_t gpt_dropout_key(unsigned seed, long step, int site) {
    return gpt_mix64(gpt_mix64(gpt_mix64(seed) + (uint64_t)step) + (uint64_t)site);
}
static inline int gpt_dropout_kept(uint64_t key, size_t i, uint32_t dropped) {
    return (uint32_t)(gpt_mix64(key + i) >> 32) >= dropped;
}

typedef struct gpt_tensor_info {
    char name[48];  /* GPT-2's name, without "transformer." */
    int rank;       /* 1 (a vector, stored 1×cols) or 2 */
    int rows, cols;
    size_t offset;  /* into the flat parameters */
    int decays;     /* AdamW's weight decay applies: the matrices and embeddings */
} gpt_tensor_info;

/* The activations of S sequences of T positions (N = S·T rows), for a forward
   pass and, when `keep`, every block's for the backward pass too (else one
   block's buffers serve every block). Capacity is fixed at create: S_max·T_max rows. */
typedef struct gpt_work {
    int keep, S, T;          /* S, T of the last run */
    size_t rows;             /* N_max */
    float *res;              /* (keep ? 2·layers+1 : 1) × N×d: the residual stream entering block l
                                (slice 2l), after its attention (2l+1), after its MLP (2l+2) */
    float *ln1, *ln2;        /* (keep ? layers : 1) × N×d: LayerNorm outputs */
    float *ln1_stat, *ln2_stat; /* (keep ? layers : 1) × N×2: each row's mean and 1/std */
    float *qkv;              /* layers × N×3d, every block's: a forward reuses the keys and values of the rows it shares */
    float *concat;           /* (keep ? layers : 1) × N×d: the heads side by side, before c_proj */
    float *fc, *act;         /* (keep ? layers : 1) × N×4d: the MLP before and after GELU */
    float *att;              /* layers × S × heads × A×A, rows A apart: A = the last run's T when keep, else
                                T_max, so that a forward of more tokens leaves the rows it shares in place */
    float *map;              /* T_max×T_max: one map packed L×L, as gpt_attention hands it out */
    float *kt;               /* unless keep: layers × d rows of kt_stride (T_max rounded up): every head's
                                K_iᵀ, a column a position, so a step's scores read it in place */
    size_t kt_stride;
    float *lnf, *lnf_stat;   /* N×d, N×2 */
    float *logits;           /* N×vocab */
    float *scratch;          /* the fast kernels' packing and attention scratch (a head's output too) */
    double scratch_floats;   /* its size, which each pool thread's scratch also holds */
    /* A training step's dropout (gpt_train.c), NULL for none: over the run's S·T rows of d, x = base + x masked,
       or x masked when base is NULL, at site 0 (the embeddings), 1 + 2l (block l's attention) or 2 + 2l (its MLP). */
    void (*drop)(const void *trainer, float *x, const float *base, int site);
    const void *drop_trainer;
    void *block;
} gpt_work;

struct gpt_model {
    gpt_config config;
    int tensor_count;
    gpt_tensor_info *tensors;
    float *params;           /* every tensor back to back; while packed, each block's four matrices as panels */
    float *panel_scratch;    /* while packed: one matrix's room, to unpack (4·d² floats), else NULL */
    size_t param_count;
    int metadata_count;
    gpt_metadata *metadata;  /* strings in metadata_strings */
    char *metadata_strings;
    int max_tokens;          /* the longest forward: context, or less when loaded so (gpt_load_begin) */
    gpt_work work;           /* one sequence of up to max_tokens tokens */
    int len;                 /* L of the last good forward, 0 before */
    int *tokens;             /* max_tokens: the last good forward's tokens */
    unsigned char *enabled;  /* layers·heads: and its heads on (1) and off (0) */
    int reusable;            /* its rows still hold for these parameters (see gpt_forward_reusing) */
    int reused;              /* rows the last forward took from the one before */
};

/* A block's tensor names, GPT_B_* order, without "h.{i}." */
extern const char *const gpt_block_names[GPT_B_COUNT];

/* Fills m->tensors (names, shapes, offsets) and m->param_count from m->config
   and m->tensor_count. */
void gpt_describe_tensors(gpt_model *m);

/* A model of this shape (checked: BAD_SIZE, TOO_LARGE…) with zeroed parameters
   and its forward's buffers, for forwards of up to max_tokens. */
mha_status gpt_model_alloc(const gpt_config *c, int max_tokens, gpt_model **out);

static inline int gpt_block_tensor(int layer, int which) { return GPT_T_BLOCKS + layer * GPT_B_COUNT + which; }
static inline float *gpt_param(const gpt_model *m, int tensor) { return m->params + m->tensors[tensor].offset; }

/* Slice l of a per-block buffer of `size` floats per block. */
static inline float *gpt_slice(const gpt_work *w, float *base, int l, size_t size) {
    return base + (w->keep ? (size_t)l : 0) * size;
}

/* A model loaded from a file keeps its blocks' matrices (c_attn, attn.c_proj, c_fc, mlp.c_proj) as panels
   (mha_to_panels): a decoding step then reads every weight in memory's order. Anything that hands the
   parameters out row-major (gpt_tensor, gpt_model_params, gpt_save, a trainer) unpacks them for good first.
   Packing needs d_model a multiple of mha_panel_columns() and the room for one matrix; without either the
   model stays row-major, slower and the same bits. */
void gpt_model_pack(gpt_model *m);
void gpt_model_unpack(gpt_model *m);

/* Floats a work area of this shape needs (for size checks before allocating). */
double     gpt_work_floats(const gpt_config *c, int S, int T, int keep);
mha_status gpt_work_create(gpt_work *w, const gpt_config *c, int S, int T, int keep);
void       gpt_work_free(gpt_work *w);

/* The forward pass of S sequences of T tokens (token t of sequence s is
   tokens[s·stride + t], already checked) up to the logits, into w. enabled as
   in gpt_forward. Positions before `from` (0 unless S is 1) are not computed:
   their rows of every buffer, at this T's layout, are the caller's (a forward
   of the same first tokens). decoding: a step of gpt_step, whose one new row's logits are summed
   row by row of wte (mha_dot_rows: memory's speed, not the bits of a forward's). MHA_ERR_NOT_FINITE when
   float32 overflowed. */
mha_status gpt_run(const gpt_model *m, gpt_work *w, const int *tokens, int stride, int S, int T, int from,
                   const unsigned char *enabled, int decoding);

/* TOKEN_RANGE for the first of count·len tokens outside 0 .. vocab-1. */
mha_status gpt_check_tokens(const gpt_model *m, const int *tokens, int count, int len);

#endif /* GPT_INTERNAL_H */
