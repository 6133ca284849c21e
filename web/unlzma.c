// The single file's LZMA decoder (web/unpack.js runs it as a tiny wasm): the LZMA SDK's LzmaSpec.cpp, in C.
#include <stdint.h>

enum {
  kIsMatch = 0, kIsRep = 192, kIsRepG0 = 204, kIsRepG1 = 216, kIsRepG2 = 228, kIsRep0Long = 240, kPosSlot = 432,
  kPosSpecial = 688, kAlign = 803, kMatchLen = 819, kRepLen = 1333, kLiteral = 1847,
  kMaxLiteral = 0x300 << 4,  // lc + lp <= 4
};

static uint16_t probs[kLiteral + kMaxLiteral];
static const uint8_t* in;
static uint32_t range, code;

static unsigned bit(uint16_t* p) {
  uint32_t bound = (range >> 11) * *p;
  unsigned b;
  if (code < bound) {
    range = bound;
    *p += (2048 - *p) >> 5;
    b = 0;
  } else {
    range -= bound;
    code -= bound;
    *p -= *p >> 5;
    b = 1;
  }
  if (range < (1u << 24)) {
    range <<= 8;
    code = (code << 8) | *in++;
  }
  return b;
}

static unsigned tree(uint16_t* p, int bits) {
  unsigned m = 1;
  for (int i = 0; i < bits; i++) m = (m << 1) + bit(p + m);
  return m - (1u << bits);
}

static unsigned reverse(uint16_t* p, int bits) {
  unsigned m = 1, symbol = 0;
  for (int i = 0; i < bits; i++) {
    unsigned b = bit(p + m);
    m = (m << 1) + b;
    symbol |= b << i;
  }
  return symbol;
}

static uint32_t direct(int bits) {
  uint32_t r = 0;
  while (bits--) {
    range >>= 1;
    unsigned b = code >= range;
    if (b) code -= range;
    r = (r << 1) | b;
    if (range < (1u << 24)) {
      range <<= 8;
      code = (code << 8) | *in++;
    }
  }
  return r;
}

// choice, choice2, low[16][8], mid[16][8], high[256]
static unsigned length(uint16_t* p, unsigned pos_state) {
  if (!bit(p)) return tree(p + 2 + pos_state * 8, 3);
  if (!bit(p + 1)) return 8 + tree(p + 2 + 128 + pos_state * 8, 3);
  return 16 + tree(p + 2 + 256, 8);
}

// The stream being unpacked, between calls of unlzma_run.
static struct {
  uint8_t* out;
  uint32_t size, at, rep0, rep1, rep2, rep3;
  unsigned state, lc, lp_mask, pb_mask;
} s;

// src: the lc/lp/pb byte, the unpacked size (32 bits, little-endian), then the LZMA stream, to be unpacked to out.
// Returns the unpacked size, or 0 if the header is not one single_file.py writes.
uint32_t unlzma_start(const uint8_t* src, uint8_t* out) {
  unsigned props = src[0], lc = props % 9, lp = props / 9 % 5, pb = props / 45;
  if (lc + lp > 4) return 0;
  for (unsigned i = 0; i < kLiteral + (0x300u << (lc + lp)); i++) probs[i] = 1024;
  in = src + 6;  // src[5] is the range coder's leading 0
  range = 0xffffffffu;
  code = 0;
  for (int i = 0; i < 4; i++) code = (code << 8) | *in++;
  s.out = out;
  s.size = src[1] | src[2] << 8 | src[3] << 16 | (uint32_t)src[4] << 24;
  s.at = s.rep0 = s.rep1 = s.rep2 = s.rep3 = s.state = 0;
  s.lc = lc;
  s.lp_mask = (1u << lp) - 1;
  s.pb_mask = (1u << pb) - 1;
  return s.size;
}

// Unpacks on to about `limit` bytes (a match may run past it) or the end. Returns how many bytes are unpacked, or 0
// for a stream single_file.py did not write. Called in slices, so that the engine's optimised code, compiled while
// the first slices run, unpacks the rest (a call runs to its end in the code it started with).
uint32_t unlzma_run(uint32_t limit) {
  uint8_t* out = s.out;
  const unsigned lc = s.lc, pb_mask = s.pb_mask, lp_mask = s.lp_mask;
  unsigned state = s.state;
  uint32_t rep0 = s.rep0, rep1 = s.rep1, rep2 = s.rep2, rep3 = s.rep3, at = s.at, len;
  const uint32_t end = limit < s.size ? limit : s.size;
  while (at < end) {
    unsigned pos_state = at & pb_mask;
    if (!bit(probs + kIsMatch + (state << 4) + pos_state)) {
      unsigned prev = at ? out[at - 1] : 0, symbol = 1;
      uint16_t* lit = probs + kLiteral + 0x300 * (((at & lp_mask) << lc) + (prev >> (8 - lc)));
      if (state >= 7) {
        unsigned match_byte = out[at - rep0 - 1];
        do {
          unsigned match_bit = (match_byte >> 7) & 1;
          match_byte <<= 1;
          unsigned b = bit(lit + ((1 + match_bit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (match_bit != b) break;
        } while (symbol < 0x100);
      }
      while (symbol < 0x100) symbol = (symbol << 1) | bit(lit + symbol);
      out[at++] = (uint8_t)symbol;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    if (bit(probs + kIsRep + state)) {
      if (!bit(probs + kIsRepG0 + state)) {
        if (!bit(probs + kIsRep0Long + (state << 4) + pos_state)) {
          state = state < 7 ? 9 : 11;
          out[at] = out[at - rep0 - 1];
          at++;
          continue;
        }
      } else {
        uint32_t dist;
        if (!bit(probs + kIsRepG1 + state)) {
          dist = rep1;
        } else {
          if (!bit(probs + kIsRepG2 + state)) {
            dist = rep2;
          } else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = length(probs + kRepLen, pos_state);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      len = length(probs + kMatchLen, pos_state);
      state = state < 7 ? 7 : 10;
      unsigned slot = tree(probs + kPosSlot + ((len < 3 ? len : 3) << 6), 6);
      if (slot < 4) {
        rep0 = slot;
      } else {
        int bits = (slot >> 1) - 1;
        rep0 = (2 | (slot & 1)) << bits;
        if (slot < 14)
          rep0 += reverse(probs + kPosSpecial + rep0 - slot, bits);
        else
          rep0 += (direct(bits - 4) << 4) + reverse(probs + kAlign, 4);
      }
    }
    if (rep0 >= at) return 0;  // a distance before the start: not a stream single_file.py wrote
    for (len += 2; len > 0 && at < s.size; len--, at++) out[at] = out[at - rep0 - 1];
  }
  s.state = state;
  s.rep0 = rep0, s.rep1 = rep1, s.rep2 = rep2, s.rep3 = rep3;
  s.at = at;
  return at;
}
