/* safetensors.c — the .safetensors format; see safetensors.h. Reading: a
   strict JSON parser for the one shape of document a header is (an object of
   tensor objects and one object of strings), then the checks every tensor's
   bytes need before anyone reads them. Then the dtypes' conversions, and the
   writer. */
#include "safetensors.h"
#include "mha_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Code run once a model (or on an error), not once a token: compiled for size, as every widget downloads it.
   (-O3 elsewhere; minsize here keeps the wasm about 1 KB smaller gzipped.) */
#if defined(__clang__)
#pragma clang attribute push (__attribute__((minsize)), apply_to = function)
#endif

static const struct { const char *name; int bytes; } dtypes[] = {
    {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F64", 8}, {"I64", 8}, {"U64", 8}, {"I32", 4}, {"U32", 4},
    {"I16", 2}, {"U16", 2}, {"I8", 1},   {"U8", 1},  {"BOOL", 1}, {"F8_E5M2", 1}, {"F8_E4M3", 1},
};

#define MAX_WHOLE ((uint64_t)1 << 53) /* larger numbers are absurd here, and not exact in JS */

typedef struct parser {
    const unsigned char *s; /* the JSON text, n bytes */
    size_t n, at;
    char *arena;            /* decoded strings; never longer than their JSON form */
    size_t used;
    st_header *out;
    size_t tensor_capacity, metadata_capacity;
} parser;

static uint64_t read_u64_le(const unsigned char *b) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

uint64_t st_header_bytes(const unsigned char first8[8]) {
    const uint64_t n = read_u64_le(first8);
    return n > ST_MAX_HEADER_BYTES ? 0 : 8 + n;
}

static mha_status syntax(const parser *p, const char *expected) {
    if (p->at >= p->n) return mha_fail(MHA_ERR_BAD_MODEL, "broken header: it ends where %s was expected", expected);
    const unsigned char c = p->s[p->at];
    if (c >= 0x20 && c < 0x7f)
        return mha_fail(MHA_ERR_BAD_MODEL, "broken header: %s expected at byte %zu, found '%c'", expected, p->at, c);
    return mha_fail(MHA_ERR_BAD_MODEL, "broken header: %s expected at byte %zu, found byte 0x%02x", expected, p->at, c);
}

static void skip_space(parser *p) {
    while (p->at < p->n && (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\n' || p->s[p->at] == '\r'))
        p->at++;
}

/* Skips space, then consumes `c` if it is next. */
static int accept(parser *p, char c) {
    skip_space(p);
    if (p->at < p->n && p->s[p->at] == (unsigned char)c) {
        p->at++;
        return 1;
    }
    return 0;
}

static mha_status expect(parser *p, char c, const char *what) { return accept(p, c) ? MHA_OK : syntax(p, what); }

static int hex4(const unsigned char *h, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        const unsigned c = h[i];
        const int d = c >= '0' && c <= '9' ? (int)(c - '0') : c >= 'a' && c <= 'f' ? (int)(c - 'a' + 10)
                    : c >= 'A' && c <= 'F' ? (int)(c - 'A' + 10) : -1;
        if (d < 0) return 0;
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return 1;
}

static void put_utf8(parser *p, unsigned cp) {
    char *o = p->arena + p->used;
    if (cp < 0x80) o[0] = (char)cp, p->used += 1;
    else if (cp < 0x800) o[0] = (char)(0xc0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3f)), p->used += 2;
    else if (cp < 0x10000)
        o[0] = (char)(0xe0 | cp >> 12), o[1] = (char)(0x80 | (cp >> 6 & 0x3f)), o[2] = (char)(0x80 | (cp & 0x3f)), p->used += 3;
    else
        o[0] = (char)(0xf0 | cp >> 18), o[1] = (char)(0x80 | (cp >> 12 & 0x3f)), o[2] = (char)(0x80 | (cp >> 6 & 0x3f)),
        o[3] = (char)(0x80 | (cp & 0x3f)), p->used += 4;
}

/* A JSON string, decoded into the arena (the text was checked to be UTF-8). */
static mha_status parse_string(parser *p, const char **out) {
    if (!accept(p, '"')) return syntax(p, "a string");
    *out = p->arena + p->used;
    while (p->at < p->n && p->s[p->at] != '"') {
        const unsigned char c = p->s[p->at];
        if (c < 0x20) return syntax(p, "a printable character in a string");
        if (c != '\\') {
            p->arena[p->used++] = (char)c;
            p->at++;
            continue;
        }
        if (p->at + 1 >= p->n) return syntax(p, "an escape");
        const unsigned char e = p->s[p->at + 1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            p->arena[p->used++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            p->at += 2;
            continue;
        }
        unsigned cp, low;
        if (e != 'u' || p->at + 6 > p->n || !hex4(p->s + p->at + 2, &cp)) return syntax(p, "an escape such as \\n or \\u00e9");
        p->at += 6;
        if (cp >= 0xd800 && cp < 0xdc00) { /* a surrogate pair */
            if (p->at + 6 > p->n || p->s[p->at] != '\\' || p->s[p->at + 1] != 'u' || !hex4(p->s + p->at + 2, &low) ||
                low < 0xdc00 || low >= 0xe000)
                return syntax(p, "the second half of a \\u surrogate pair");
            p->at += 6;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
            return syntax(p, "a \\u escape that is not a lone surrogate");
        }
        if (cp == 0) return syntax(p, "a character other than \\u0000");
        put_utf8(p, cp);
    }
    if (p->at >= p->n) return syntax(p, "the end of a string");
    p->at++;
    p->arena[p->used++] = '\0';
    return MHA_OK;
}

/* A whole number from 0 to 2^53, in plain JSON form (no sign, fraction or exponent). */
static mha_status parse_whole(parser *p, uint64_t *out, const char *name, const char *field) {
    skip_space(p);
    const size_t start = p->at;
    uint64_t v = 0;
    while (p->at < p->n && p->s[p->at] >= '0' && p->s[p->at] <= '9') {
        v = v * 10 + (uint64_t)(p->s[p->at++] - '0');
        if (v > MAX_WHOLE) return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: a number in %s is absurdly large", name, field);
    }
    const int digits = (int)(p->at - start);
    if (digits == 0 || (digits > 1 && p->s[start] == '0') ||
        (p->at < p->n && (p->s[p->at] == '.' || p->s[p->at] == 'e' || p->s[p->at] == 'E')))
        return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: %s must hold whole numbers from 0 up", name, field);
    *out = v;
    return MHA_OK;
}

/* [n, n, ...] with at most `max` numbers. */
static mha_status parse_wholes(parser *p, uint64_t *values, int max, int *count, const char *name, const char *field) {
    mha_status status = expect(p, '[', "'[' (an array)");
    *count = 0;
    if (status || accept(p, ']')) return status;
    do {
        if (*count == max)
            return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: %s has more than %d numbers", name, field, max);
        if ((status = parse_whole(p, &values[(*count)++], name, field))) return status;
    } while (accept(p, ','));
    return expect(p, ']', "',' or ']'");
}

static mha_status parse_tensor(parser *p, const char *name) {
    if (p->out->tensor_count == (int)p->tensor_capacity) {
        const size_t capacity = p->tensor_capacity * 2 + 16;
        st_tensor *grown = realloc(p->out->tensors, capacity * sizeof *grown);
        if (!grown) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the header's tensor list");
        p->out->tensors = grown, p->tensor_capacity = capacity;
    }
    st_tensor *t = &p->out->tensors[p->out->tensor_count++];
    memset(t, 0, sizeof *t);
    t->name = name;
    int have_dtype = 0, have_shape = 0, have_offsets = 0;
    mha_status status = expect(p, '{', "'{' (the tensor's description)");
    if (status || accept(p, '}')) return status ? status : mha_fail(MHA_ERR_BAD_MODEL, "tensor %s has no dtype, shape or data_offsets", name);
    do {
        const char *field, *dtype;
        uint64_t values[ST_MAX_RANK];
        int count;
        if ((status = parse_string(p, &field)) || (status = expect(p, ':', "':'"))) return status;
        if (!strcmp(field, "dtype") && !have_dtype) {
            if ((status = parse_string(p, &dtype))) return status;
            for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes && !t->dtype_bytes; i++)
                if (!strcmp(dtype, dtypes[i].name)) strcpy(t->dtype, dtypes[i].name), t->dtype_bytes = dtypes[i].bytes;
            if (!t->dtype_bytes)
                return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s has dtype \"%.16s\", which safetensors does not define", name, dtype);
            have_dtype = 1;
        } else if (!strcmp(field, "shape") && !have_shape) {
            if ((status = parse_wholes(p, values, ST_MAX_RANK, &t->rank, name, "shape"))) return status;
            t->count = 1;
            for (int i = 0; i < t->rank; i++) {
                if (values[i] > 0 && (uint64_t)t->count > MAX_WHOLE / values[i])
                    return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: its shape has absurdly many elements", name);
                t->shape[i] = (int64_t)values[i];
                t->count *= (int64_t)values[i];
            }
            have_shape = 1;
        } else if (!strcmp(field, "data_offsets") && !have_offsets) {
            if ((status = parse_wholes(p, values, 2, &count, name, "data_offsets"))) return status;
            if (count != 2) return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: data_offsets must be [begin, end]", name);
            t->begin = values[0], t->end = values[1];
            have_offsets = 1;
        } else {
            return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: unexpected or repeated field \"%.40s\" (a tensor has dtype, shape "
                            "and data_offsets)", name, field);
        }
    } while (accept(p, ','));
    if ((status = expect(p, '}', "',' or '}'"))) return status;
    if (!have_dtype || !have_shape || !have_offsets)
        return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s has no %s", name, !have_dtype ? "dtype" : !have_shape ? "shape" : "data_offsets");
    return MHA_OK;
}

static mha_status parse_metadata(parser *p) {
    mha_status status = expect(p, '{', "'{' (__metadata__ is an object of strings)");
    if (status || accept(p, '}')) return status;
    do {
        const char *key, *value;
        if ((status = parse_string(p, &key)) || (status = expect(p, ':', "':'"))) return status;
        skip_space(p);
        if (p->at < p->n && p->s[p->at] != '"')
            return mha_fail(MHA_ERR_BAD_MODEL, "__metadata__ \"%.40s\" is not a string (metadata values must be strings)", key);
        if ((status = parse_string(p, &value))) return status;
        if (p->out->metadata_count == (int)p->metadata_capacity) {
            const size_t capacity = p->metadata_capacity * 2 + 8;
            st_entry *grown = realloc(p->out->metadata, capacity * sizeof *grown);
            if (!grown) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory for the header's metadata");
            p->out->metadata = grown, p->metadata_capacity = capacity;
        }
        p->out->metadata[p->out->metadata_count++] = (st_entry){key, value};
    } while (accept(p, ','));
    return expect(p, '}', "',' or '}'");
}

/* The index of the first byte that is not part of well-formed UTF-8, or n. */
static size_t utf8_end(const unsigned char *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        const unsigned c = s[i];
        const int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 4 : 0;
        if (!len || i + (size_t)len > n) return i;
        unsigned cp = len == 1 ? c : c & (0x7fu >> len);
        for (int k = 1; k < len; k++) {
            if ((s[i + (size_t)k] & 0xc0) != 0x80) return i;
            cp = cp << 6 | (s[i + (size_t)k] & 0x3f);
        }
        if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return i;
        i += (size_t)len;
    }
    return n;
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const st_tensor *)a)->name, ((const st_tensor *)b)->name);
}

static int by_begin(const void *a, const void *b) {
    const st_tensor *x = *(const st_tensor *const *)a, *y = *(const st_tensor *const *)b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : x->end < y->end ? -1 : x->end > y->end;
}

/* Each tensor's bytes match its shape and lie in the file; no two overlap; no name twice. */
static mha_status check_tensors(st_header *h, uint64_t data_bytes) {
    if (!h->tensor_count) return MHA_OK; /* a header of no tensors ({}) has no list to sort: qsort may not get NULL */
    for (int i = 0; i < h->tensor_count; i++) {
        const st_tensor *t = &h->tensors[i];
        const uint64_t bytes = (uint64_t)t->count * (uint64_t)t->dtype_bytes; /* count <= 2^53, dtype <= 8: fits */
        if (t->end < t->begin)
            return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: data_offsets [%llu, %llu] end before they begin", t->name,
                            (unsigned long long)t->begin, (unsigned long long)t->end);
        if (t->end - t->begin != bytes)
            return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: data_offsets [%llu, %llu] hold %llu bytes, but %lld %s elements need %llu",
                            t->name, (unsigned long long)t->begin, (unsigned long long)t->end,
                            (unsigned long long)(t->end - t->begin), (long long)t->count, t->dtype, (unsigned long long)bytes);
        if (t->end > data_bytes)
            return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s: its bytes end at %llu, past the end of the data (%llu bytes): "
                            "the file is truncated or the offsets are wrong", t->name, (unsigned long long)t->end,
                            (unsigned long long)data_bytes);
    }
    qsort(h->tensors, (size_t)h->tensor_count, sizeof *h->tensors, by_name);
    for (int i = 1; i < h->tensor_count; i++)
        if (!strcmp(h->tensors[i].name, h->tensors[i - 1].name))
            return mha_fail(MHA_ERR_BAD_MODEL, "tensor %s appears twice in the header", h->tensors[i].name);
    const st_tensor **order = malloc((size_t)(h->tensor_count + 1) * sizeof *order);
    if (!order) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory to check the tensors' offsets");
    for (int i = 0; i < h->tensor_count; i++) order[i] = &h->tensors[i];
    qsort(order, (size_t)h->tensor_count, sizeof *order, by_begin);
    mha_status status = MHA_OK;
    const st_tensor *furthest = NULL; /* of the tensors so far, the one whose bytes reach furthest */
    for (int i = 0; i < h->tensor_count && !status; i++) {
        if (order[i]->end == order[i]->begin) continue; /* no bytes, nothing to overlap */
        if (furthest && order[i]->begin < furthest->end)
            status = mha_fail(MHA_ERR_BAD_MODEL, "tensors %s and %s overlap in the file", furthest->name, order[i]->name);
        if (!furthest || order[i]->end > furthest->end) furthest = order[i];
    }
    free(order);
    return status;
}

static mha_status parse_document(parser *p) {
    mha_status status = expect(p, '{', "'{' (the header is a JSON object)");
    int have_metadata = 0;
    if (status || accept(p, '}')) return status;
    do {
        const char *name;
        if ((status = parse_string(p, &name)) || (status = expect(p, ':', "':'"))) return status;
        if (!strcmp(name, "__metadata__")) {
            if (have_metadata) return mha_fail(MHA_ERR_BAD_MODEL, "__metadata__ appears twice in the header");
            have_metadata = 1;
            status = parse_metadata(p);
        } else {
            status = parse_tensor(p, name);
        }
        if (status) return status;
    } while (accept(p, ','));
    if ((status = expect(p, '}', "',' or '}'"))) return status;
    skip_space(p);
    return p->at == p->n ? MHA_OK : syntax(p, "the end of the header (only spaces may follow the object)");
}

mha_status st_parse(const unsigned char *bytes, size_t size, uint64_t file_size, st_header *out) {
    if (!bytes || !out) return mha_fail(MHA_ERR_NULL_ARGUMENT, "st_parse needs bytes and an output");
    memset(out, 0, sizeof *out);
    if (file_size < 8 || size < 8)
        return mha_fail(MHA_ERR_BAD_MODEL, "the file has %llu bytes, too few for a .safetensors file (8 bytes of header "
                        "length, then the header)", (unsigned long long)file_size);
    const uint64_t n = read_u64_le(bytes);
    if (n > ST_MAX_HEADER_BYTES)
        return mha_fail(MHA_ERR_BAD_MODEL, "broken header: its length %llu is absurd (more than %u bytes); is this a .safetensors file?",
                        (unsigned long long)n, ST_MAX_HEADER_BYTES);
    if (8 + n > file_size)
        return mha_fail(MHA_ERR_BAD_MODEL, "broken header: it says it is %llu bytes long, but the file has only %llu bytes after "
                        "its length: the file is truncated", (unsigned long long)n, (unsigned long long)(file_size - 8));
    if (8 + n > size)
        return mha_fail(MHA_ERR_BAD_MODEL, "broken header: only %zu of its %llu bytes were given", size - 8, (unsigned long long)n);
    const size_t bad = utf8_end(bytes + 8, (size_t)n);
    if (bad < n) return mha_fail(MHA_ERR_BAD_MODEL, "broken header: byte %zu is not UTF-8", bad);
    parser p = {bytes + 8, (size_t)n, 0, malloc((size_t)n + 1), 0, out, 0, 0};
    if (!p.arena) return mha_fail(MHA_ERR_OUT_OF_MEMORY, "not enough memory to read a header of %llu bytes", (unsigned long long)n);
    out->strings = p.arena;
    out->data_start = 8 + n;
    mha_status status = parse_document(&p);
    if (!status) status = check_tensors(out, file_size - out->data_start);
    if (status) st_free(out);
    return status;
}

void st_free(st_header *header) {
    if (!header) return;
    free(header->tensors);
    free(header->metadata);
    free(header->strings);
    memset(header, 0, sizeof *header);
}

const st_tensor *st_find(const st_header *header, const char *name) {
    const st_tensor key = {.name = name};
    if (!header->tensor_count) return NULL; /* no list (bsearch may not get NULL) */
    return bsearch(&key, header->tensors, (size_t)header->tensor_count, sizeof key, by_name); /* sorted by st_parse */
}

/* ---- the dtypes ---- */

/* IEEE half to float, exactly (every half is a float). */
static float half_to_float(unsigned h) {
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = h >> 10 & 0x1f;
    uint32_t mantissa = h & 0x3ff, bits;
    if (exponent == 31) bits = sign | 0x7f800000 | mantissa << 13;   /* infinity, NaN */
    else if (exponent) bits = sign | (exponent + 112) << 23 | mantissa << 13;
    else if (!mantissa) bits = sign;                                  /* ±0 */
    else {                                                            /* subnormal: normalise */
        uint32_t e = 113;
        while (!(mantissa & 0x400)) mantissa <<= 1, e--;
        bits = sign | e << 23 | (mantissa & 0x3ff) << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* From the last, so no half is overwritten before it is read. */
void st_widen_f16(float *p, size_t n) {
    const unsigned char *bytes = (const unsigned char *)p;
    for (size_t i = n; i-- > 0;) {
        const float f = half_to_float((unsigned)bytes[2 * i] | (unsigned)bytes[2 * i + 1] << 8);
        memcpy(p + i, &f, sizeof f);
    }
}


uint16_t st_narrow_f16(float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t sign = bits >> 16 & 0x8000, exponent = bits >> 23 & 0xff, mantissa = bits & 0x7fffff;
    if (exponent == 0xff) return (uint16_t)(sign | 0x7c00 | (mantissa ? 0x200 : 0));
    const int e = (int)exponent - 112; /* the half's biased exponent */
    if (e >= 31) return (uint16_t)(sign | 0x7c00);
    /* the bits kept, and the rest to round by: a subnormal half keeps fewer */
    const int shift = e <= 0 ? 14 - e : 13;
    if (shift > 24) return (uint16_t)sign;
    const uint32_t kept_bits = e <= 0 ? (mantissa | 0x800000) : ((uint32_t)e << 23 | mantissa);
    const uint32_t kept = kept_bits >> shift, rest = kept_bits & ((1u << shift) - 1), half = 1u << (shift - 1);
    /* a carry into the exponent is the right rounding */
    return (uint16_t)(sign | (kept + (rest > half || (rest == half && (kept & 1)))));
}

/* ---- writing ---- */

/* Appends to a buffer that only counts once it is full. */
typedef struct writer {
    unsigned char *out;
    size_t capacity, size;
} writer;

static void put(writer *w, const void *bytes, size_t n) {
    if (w->out && w->size + n <= w->capacity) memcpy(w->out + w->size, bytes, n);
    w->size += n;
}

static void put_text(writer *w, const char *s) { put(w, s, strlen(s)); }

static void put_json_string(writer *w, const char *s) {
    put_text(w, "\"");
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        char escaped[8];
        const char *short_form = c && c < 0x20 ? strchr("\b\f\n\r\t", c) : NULL;
        if (c == '"' || c == '\\') snprintf(escaped, sizeof escaped, "\\%c", c);
        else if (short_form) snprintf(escaped, sizeof escaped, "\\%c", "bfnrt"[short_form - "\b\f\n\r\t"]);
        else if (c < 0x20) snprintf(escaped, sizeof escaped, "\\u%04x", c);
        else escaped[0] = (char)c, escaped[1] = '\0';
        put_text(w, escaped);
    }
    put_text(w, "\"");
}

static size_t elements(const st_source *t) {
    size_t n = 1;
    for (int k = 0; k < t->rank; k++) n *= (size_t)t->shape[k];
    return n;
}

/* The JSON header, without its length or padding. */
static void put_header(writer *w, const st_source *tensors, int count, const char *dtype, int bytes, const st_entry *metadata,
                       int metadata_count) {
    put_text(w, "{\"__metadata__\":{");
    for (int i = 0; i < metadata_count; i++) {
        if (i) put_text(w, ",");
        put_json_string(w, metadata[i].key);
        put_text(w, ":");
        put_json_string(w, metadata[i].value);
    }
    put_text(w, "}");
    uint64_t begin = 0;
    for (int i = 0; i < count; i++) {
        const st_source *t = &tensors[i];
        char number[32];
        put_text(w, ",");
        put_json_string(w, t->name);
        put_text(w, ":{\"dtype\":");
        put_json_string(w, dtype);
        put_text(w, ",\"shape\":[");
        for (int k = 0; k < t->rank; k++) {
            snprintf(number, sizeof number, "%s%lld", k ? "," : "", (long long)t->shape[k]);
            put_text(w, number);
        }
        const uint64_t end = begin + (uint64_t)elements(t) * (uint64_t)bytes;
        snprintf(number, sizeof number, "],\"data_offsets\":[%llu,", (unsigned long long)begin);
        put_text(w, number);
        snprintf(number, sizeof number, "%llu]}", (unsigned long long)end);
        put_text(w, number);
        begin = end;
    }
    put_text(w, "}");
}

mha_status st_write(const st_source *tensors, int count, const char *dtype, const st_entry *metadata, int metadata_count,
                    unsigned char *out, size_t capacity, size_t *size) {
    const int f16 = dtype && !strcmp(dtype, "F16"), bytes = f16 ? 2 : 4;
    if (!f16 && (!dtype || strcmp(dtype, "F32")))
        return mha_fail(MHA_ERR_BAD_INPUT, "a file is written as F32 or F16, not %.16s", dtype ? dtype : "(none)");
    writer probe = {NULL, 0, 0};
    put_header(&probe, tensors, count, dtype, bytes, metadata, metadata_count);
    const size_t header = (probe.size + 7) / 8 * 8; /* padded with spaces: the data starts 8-byte aligned */
    *size = 8 + header;
    for (int i = 0; i < count; i++) *size += elements(&tensors[i]) * (size_t)bytes;
    if (!out) return MHA_OK;
    if (capacity < *size)
        return mha_fail(MHA_ERR_TOO_LARGE, "the model needs %zu bytes, more than the %zu given", *size, capacity);
    unsigned char length[8];
    for (int i = 0; i < 8; i++) length[i] = (unsigned char)((uint64_t)header >> (8 * i));
    writer w = {out, capacity, 0};
    put(&w, length, 8);
    put_header(&w, tensors, count, dtype, bytes, metadata, metadata_count);
    while (w.size < 8 + header) put_text(&w, " ");
    for (int i = 0; i < count; i++) {
        const size_t n = elements(&tensors[i]);
        if (!f16) { /* little-endian, as the file wants, on every target we build */
            put(&w, tensors[i].values, n * sizeof(float));
            continue;
        }
        for (size_t j = 0; j < n; j++) {
            const uint16_t h = st_narrow_f16(tensors[i].values[j]);
            const unsigned char le[2] = {(unsigned char)(h & 0xff), (unsigned char)(h >> 8)};
            put(&w, le, 2);
        }
    }
    return MHA_OK;
}

#if defined(__clang__)
#pragma clang attribute pop
#endif
