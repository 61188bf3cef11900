/* ampi_external32: MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size with datarep "external32" (MPI-3.1 4.2, 13.5.2),
 * checked exactly (plain C, standard MPI; a last part, under ROAM_AMPI,
 * moves each rank between packing and unpacking):
 *   every predefined type packed and its bytes compared with hand-written
 *   big-endian ones (long is 4 bytes, long double IEEE quad), then unpacked
 *   and packed again; a struct with holes, a strided vector and an hvector
 *   of the struct round-tripped; sizes; positions advancing over several
 *   calls; external32 bytes sent to the next rank and unpacked there;
 *   truncation, unknown datareps and a long beyond 32 bits (MPI_ERR_CONVERSION)
 *   under MPI_ERRORS_RETURN.
 *   ampi_external32 [+vp N +p P ...]
 * Rank 0 prints "ampi_external32: OK (N ranks)" when every check of every
 * rank passed; the program returns nonzero otherwise. */
#include <mpi.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define CHECK_PROGRAM "ampi_external32"
#include "check.h"

static const char* ext32 = "external32";

/* Hex digits (spaces ignored) into bytes; returns how many. */
static int hex(const char* s, unsigned char* out) {
  int n = 0, half = -1;
  for (; *s; ++s) {
    int v;
    if (*s >= '0' && *s <= '9') v = *s - '0';
    else if (*s >= 'a' && *s <= 'f') v = *s - 'a' + 10;
    else continue;
    if (half < 0) {
      half = v;
    } else {
      out[n++] = (unsigned char)(half << 4 | v);
      half = -1;
    }
  }
  return n;
}

static void dump(const unsigned char* b, int n, char* text) {
  for (int i = 0; i < n; ++i) sprintf(text + 2 * i, "%02x", b[i]);
  text[2 * n] = 0;
}

/* One element of `type` at `value` packed: its size, its bytes (`expect` in
 * hex), the byte after it untouched; unpacked into zeroed memory and packed
 * again, the same bytes. */
static void check_one(struct ctx* c, const char* name, MPI_Datatype type, const void* value, const char* expect) {
  unsigned char want[64], got[80], again[80], native[64];
  char text[200];
  const int n = hex(expect, want);
  MPI_Aint size = -1, pos = 0;
  MPI_Pack_external_size(ext32, 1, type, &size);
  CHECK(size == n, "%s: external32 size %ld, expected %d", name, (long)size, n);
  memset(got, 0xcc, sizeof got);
  int rc = MPI_Pack_external(ext32, value, 1, type, got, (MPI_Aint)sizeof got, &pos);
  dump(got, n, text);
  CHECK(rc == MPI_SUCCESS && pos == n && memcmp(got, want, (size_t)n) == 0 && got[n] == 0xcc,
        "%s: packed %s (position %ld), expected %s", name, text, (long)pos, expect);
  memset(native, 0, sizeof native);
  pos = 0;
  rc = MPI_Unpack_external(ext32, got, n, &pos, native, 1, type);
  CHECK(rc == MPI_SUCCESS && pos == n, "%s: unpacked to position %ld", name, (long)pos);
  pos = 0;
  MPI_Pack_external(ext32, native, 1, type, again, (MPI_Aint)sizeof again, &pos);
  dump(again, n, text);
  CHECK(pos == n && memcmp(again, want, (size_t)n) == 0, "%s: unpacked and packed again %s", name, text);
}

static void check_predefined(struct ctx* c) {
  char ch = 'A';
  signed char sc = -2;
  unsigned char uc = 0xab, by = 0x7f, pk = 0x5c;
  short sh = -2;
  unsigned short us = 0xbeef;
  int i = 0x01020304;
  unsigned u = 0xdeadbeefu;
  long l = -2, lmax = 0x7fffffffL, lmin = -0x7fffffffL - 1;
  unsigned long ul = 0xfedcba98ul;
  long long ll = 0x0102030405060708LL;
  unsigned long long ull = 0xf1f2f3f4f5f6f7f8ULL;
  float f = 1.0f, f2 = -2.5f;
  double d = 1.0, d2 = -0.1;
  long double ld = 1.0L, ld2 = -3.0L;
  wchar_t wc = L'Z';
  bool b = true;
  signed char i8 = -1;
  short i16 = 0x1234;
  int i32 = -0x12345678;
  long long i64 = -0x0102030405060708LL;
  unsigned char u8 = 0xfe;
  unsigned short u16 = 0xfedc;
  unsigned u32 = 0x89abcdefu;
  unsigned long long u64 = 0x0123456789abcdefULL;
  float fc[2] = {1.0f, -2.5f};
  double dc[2] = {1.0, 2.0};
  long double ldc[2] = {1.0L, -3.0L};
  MPI_Aint ai = -2;
  MPI_Offset off = 0x0102030405060708LL;
  MPI_Count cnt = 0x7fffffffffffffffLL;
  struct { float v; int i; } fi = {1.0f, 7};
  struct { double v; int i; } di = {1.0, -1};
  struct { long v; int i; } li = {-2, 5};
  struct { int v; int i; } ii = {1, 2};
  struct { short v; int i; } si = {-2, 3};
  struct { long double v; int i; } ldi = {1.0L, 9};
  float f2a[2] = {1.0f, 2.0f};
  double d2a[2] = {-1.0, 0.5};
  int i2a[2] = {-1, 256};
  int logical = 1;

  check_one(c, "MPI_CHAR", MPI_CHAR, &ch, "41");
  check_one(c, "MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, &sc, "fe");
  check_one(c, "MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, &uc, "ab");
  check_one(c, "MPI_BYTE", MPI_BYTE, &by, "7f");
  check_one(c, "MPI_SHORT", MPI_SHORT, &sh, "ff fe");
  check_one(c, "MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, &us, "be ef");
  check_one(c, "MPI_INT", MPI_INT, &i, "01 02 03 04");
  check_one(c, "MPI_UNSIGNED", MPI_UNSIGNED, &u, "de ad be ef");
  check_one(c, "MPI_LONG", MPI_LONG, &l, "ff ff ff fe");
  check_one(c, "MPI_LONG max", MPI_LONG, &lmax, "7f ff ff ff");
  check_one(c, "MPI_LONG min", MPI_LONG, &lmin, "80 00 00 00");
  check_one(c, "MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, &ul, "fe dc ba 98");
  check_one(c, "MPI_LONG_LONG_INT", MPI_LONG_LONG_INT, &ll, "01 02 03 04 05 06 07 08");
  check_one(c, "MPI_LONG_LONG", MPI_LONG_LONG, &ll, "01 02 03 04 05 06 07 08");
  check_one(c, "MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, &ull, "f1 f2 f3 f4 f5 f6 f7 f8");
  check_one(c, "MPI_FLOAT", MPI_FLOAT, &f, "3f 80 00 00");
  check_one(c, "MPI_FLOAT -2.5", MPI_FLOAT, &f2, "c0 20 00 00");
  check_one(c, "MPI_DOUBLE", MPI_DOUBLE, &d, "3f f0 00 00 00 00 00 00");
  check_one(c, "MPI_DOUBLE -0.1", MPI_DOUBLE, &d2, "bf b9 99 99 99 99 99 9a");
  check_one(c, "MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, &ld, "3f ff 00 00 00 00 00 00 00 00 00 00 00 00 00 00");
  check_one(c, "MPI_LONG_DOUBLE -3", MPI_LONG_DOUBLE, &ld2, "c0 00 80 00 00 00 00 00 00 00 00 00 00 00 00 00");
  check_one(c, "MPI_WCHAR", MPI_WCHAR, &wc, "00 00 00 5a");
  check_one(c, "MPI_C_BOOL", MPI_C_BOOL, &b, "01");
  check_one(c, "MPI_CXX_BOOL", MPI_CXX_BOOL, &b, "01");
  check_one(c, "MPI_INT8_T", MPI_INT8_T, &i8, "ff");
  check_one(c, "MPI_INT16_T", MPI_INT16_T, &i16, "12 34");
  check_one(c, "MPI_INT32_T", MPI_INT32_T, &i32, "ed cb a9 88");
  check_one(c, "MPI_INT64_T", MPI_INT64_T, &i64, "fe fd fc fb fa f9 f8 f8");
  check_one(c, "MPI_UINT8_T", MPI_UINT8_T, &u8, "fe");
  check_one(c, "MPI_UINT16_T", MPI_UINT16_T, &u16, "fe dc");
  check_one(c, "MPI_UINT32_T", MPI_UINT32_T, &u32, "89 ab cd ef");
  check_one(c, "MPI_UINT64_T", MPI_UINT64_T, &u64, "01 23 45 67 89 ab cd ef");
  check_one(c, "MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, fc, "3f 80 00 00 c0 20 00 00");
  check_one(c, "MPI_C_COMPLEX", MPI_C_COMPLEX, fc, "3f 80 00 00 c0 20 00 00");
  check_one(c, "MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, dc, "3ff0000000000000 4000000000000000");
  check_one(c, "MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, ldc,
            "3fff0000000000000000000000000000 c0008000000000000000000000000000");
  check_one(c, "MPI_CXX_FLOAT_COMPLEX", MPI_CXX_FLOAT_COMPLEX, fc, "3f 80 00 00 c0 20 00 00");
  check_one(c, "MPI_CXX_DOUBLE_COMPLEX", MPI_CXX_DOUBLE_COMPLEX, dc, "3ff0000000000000 4000000000000000");
  check_one(c, "MPI_CXX_LONG_DOUBLE_COMPLEX", MPI_CXX_LONG_DOUBLE_COMPLEX, ldc,
            "3fff0000000000000000000000000000 c0008000000000000000000000000000");
  check_one(c, "MPI_AINT", MPI_AINT, &ai, "ff ff ff ff ff ff ff fe");
  check_one(c, "MPI_OFFSET", MPI_OFFSET, &off, "01 02 03 04 05 06 07 08");
  check_one(c, "MPI_COUNT", MPI_COUNT, &cnt, "7f ff ff ff ff ff ff ff");
  check_one(c, "MPI_PACKED", MPI_PACKED, &pk, "5c");
  check_one(c, "MPI_FLOAT_INT", MPI_FLOAT_INT, &fi, "3f 80 00 00 00 00 00 07");
  check_one(c, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, &di, "3f f0 00 00 00 00 00 00 ff ff ff ff");
  check_one(c, "MPI_LONG_INT", MPI_LONG_INT, &li, "ff ff ff fe 00 00 00 05");
  check_one(c, "MPI_2INT", MPI_2INT, &ii, "00 00 00 01 00 00 00 02");
  check_one(c, "MPI_SHORT_INT", MPI_SHORT_INT, &si, "ff fe 00 00 00 03");
  check_one(c, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, &ldi, "3fff0000000000000000000000000000 00000009");
  check_one(c, "MPI_2FLOAT", MPI_2FLOAT, f2a, "3f 80 00 00 40 00 00 00");
  check_one(c, "MPI_2DOUBLE_PRECISION", MPI_2DOUBLE_PRECISION, d2a, "bff0000000000000 3fe0000000000000");
  check_one(c, "MPI_2INTEGER", MPI_2INTEGER, i2a, "ff ff ff ff 00 00 01 00");
  check_one(c, "MPI_INTEGER", MPI_INTEGER, &i, "01 02 03 04");
  check_one(c, "MPI_REAL", MPI_REAL, &f, "3f 80 00 00");
  check_one(c, "MPI_DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, &d, "3f f0 00 00 00 00 00 00");
  check_one(c, "MPI_LOGICAL", MPI_LOGICAL, &logical, "00 00 00 01");
  check_one(c, "MPI_CHARACTER", MPI_CHARACTER, &ch, "41");
  check_one(c, "MPI_COMPLEX", MPI_COMPLEX, fc, "3f 80 00 00 c0 20 00 00");
  check_one(c, "MPI_DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX, dc, "3ff0000000000000 4000000000000000");

  /* Unpacked values, exactly (the padding of long double aside). */
  unsigned char buf[64];
  MPI_Aint pos = 0;
  long lback = 0;
  long double ldback = 0;
  struct { long double v; int i; } ldiback = {0, 0};
  MPI_Pack_external(ext32, &l, 1, MPI_LONG, buf, sizeof buf, &pos);
  MPI_Pack_external(ext32, &ld2, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &pos);
  MPI_Pack_external(ext32, &ldi, 1, MPI_LONG_DOUBLE_INT, buf, sizeof buf, &pos);
  CHECK(pos == 4 + 16 + 20, "position %ld after long, long double, long double int", (long)pos);
  pos = 0;
  MPI_Unpack_external(ext32, buf, sizeof buf, &pos, &lback, 1, MPI_LONG);
  MPI_Unpack_external(ext32, buf, sizeof buf, &pos, &ldback, 1, MPI_LONG_DOUBLE);
  MPI_Unpack_external(ext32, buf, sizeof buf, &pos, &ldiback, 1, MPI_LONG_DOUBLE_INT);
  CHECK(pos == 40 && lback == -2 && ldback == -3.0L && ldiback.v == 1.0L && ldiback.i == 9,
        "unpacked %ld, %Lg, (%Lg, %d)", lback, ldback, ldiback.v, ldiback.i);
  /* A long double with all its bits: 1 + 2^-63 (x87's last bit) survives. */
  long double fine = 1.0L + 1.0L / 9223372036854775808.0L, fine_back = 0;
  pos = 0;
  MPI_Pack_external(ext32, &fine, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &pos);
  pos = 0;
  MPI_Unpack_external(ext32, buf, sizeof buf, &pos, &fine_back, 1, MPI_LONG_DOUBLE);
  CHECK(fine_back == fine, "1 + 2^-63 came back as %.21Lg", fine_back);
}

/* ---- derived types ------------------------------------------------------- */
struct rec {
  char tag[3]; /* then a hole before `n` */
  long n;
  double x[2];
};

static MPI_Datatype rec_type(void) {
  int lengths[3] = {3, 1, 2};
  MPI_Aint displs[3] = {offsetof(struct rec, tag), offsetof(struct rec, n), offsetof(struct rec, x)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE}, t;
  MPI_Type_create_struct(3, lengths, displs, types, &t);
  MPI_Type_commit(&t);
  return t;
}

static void fill_rec(struct rec* r, int k) {
  memset(r, 0x5a, sizeof *r); /* holes too: they must not travel */
  r->tag[0] = 'a', r->tag[1] = (char)('b' + k), r->tag[2] = 'c';
  r->n = -1000 * (k + 1);
  r->x[0] = 1.0 + k;
  r->x[1] = -0.5;
}

static int same_rec(const struct rec* a, const struct rec* b) {
  return memcmp(a->tag, b->tag, 3) == 0 && a->n == b->n && a->x[0] == b->x[0] && a->x[1] == b->x[1];
}

static void check_derived(struct ctx* c) {
  MPI_Datatype rt = rec_type();
  struct rec in[2], out[2];
  fill_rec(&in[0], 0);
  fill_rec(&in[1], 1);
  MPI_Aint size = 0, pos = 0;
  MPI_Pack_external_size(ext32, 1, rt, &size);
  CHECK(size == 3 + 4 + 16, "struct: external32 size %ld", (long)size);
  MPI_Pack_external_size(ext32, 2, rt, &size);
  CHECK(size == 46, "2 structs: external32 size %ld", (long)size);
  unsigned char buf[128], want[64];
  char text[200];
  MPI_Pack_external(ext32, in, 2, rt, buf, sizeof buf, &pos);
  CHECK(pos == 46, "2 structs packed to %ld", (long)pos);
  const int n = hex("61 62 63 ff ff fc 18 3ff0000000000000 bfe0000000000000"
                    "61 63 63 ff ff f8 30 4000000000000000 bfe0000000000000",
                    want);
  dump(buf, n, text);
  CHECK(n == 46 && memcmp(buf, want, 46) == 0, "2 structs: %s", text);
  memset(out, 0xee, sizeof out);
  pos = 0;
  MPI_Unpack_external(ext32, buf, 46, &pos, out, 2, rt);
  CHECK(pos == 46 && same_rec(&out[0], &in[0]) && same_rec(&out[1], &in[1]), "2 structs unpacked (n %ld, %ld)",
        out[0].n, out[1].n);
  const unsigned char* hole = (const unsigned char*)&out[0] + 3;
  CHECK(offsetof(struct rec, n) == 3 || hole[0] == 0xee, "the hole after tag was written: %02x", hole[0]);

  /* A vector with a stride: shorts 0,1, 4,5, 8,9 of 12. */
  MPI_Datatype vt;
  MPI_Type_vector(3, 2, 4, MPI_SHORT, &vt);
  MPI_Type_commit(&vt);
  short sv[12], sback[12];
  for (int i = 0; i < 12; ++i) sv[i] = (short)(0x0101 * i - 3);
  MPI_Pack_external_size(ext32, 1, vt, &size);
  CHECK(size == 12, "vector: external32 size %ld", (long)size);
  pos = 0;
  MPI_Pack_external(ext32, sv, 1, vt, buf, sizeof buf, &pos);
  const int vn = hex("fffd 00fe 0401 0502 0805 0906", want);
  dump(buf, vn, text);
  CHECK(pos == 12 && vn == 12 && memcmp(buf, want, 12) == 0, "vector: %s", text);
  memset(sback, 0, sizeof sback);
  pos = 0;
  MPI_Unpack_external(ext32, buf, 12, &pos, sback, 1, vt);
  int ok = pos == 12;
  for (int i = 0; i < 12; ++i) ok = ok && sback[i] == (i % 4 < 2 ? sv[i] : 0);
  CHECK(ok, "vector unpacked: %d %d %d %d %d", sback[0], sback[1], sback[2], sback[4], sback[9]);

  /* An hvector of the struct (every other record of 5). */
  MPI_Datatype ht;
  MPI_Type_create_hvector(3, 1, 2 * (MPI_Aint)sizeof(struct rec), rt, &ht);
  MPI_Type_commit(&ht);
  struct rec many[5], many_back[5];
  for (int k = 0; k < 5; ++k) fill_rec(&many[k], k);
  MPI_Pack_external_size(ext32, 1, ht, &size);
  CHECK(size == 69, "hvector of structs: external32 size %ld", (long)size);
  pos = 0;
  MPI_Pack_external(ext32, many, 1, ht, buf, sizeof buf, &pos);
  memset(many_back, 0, sizeof many_back);
  MPI_Aint upos = 0;
  MPI_Unpack_external(ext32, buf, pos, &upos, many_back, 1, ht);
  CHECK(pos == 69 && upos == 69 && same_rec(&many_back[0], &many[0]) && same_rec(&many_back[2], &many[2]) &&
            same_rec(&many_back[4], &many[4]) && many_back[1].n == 0 && many_back[3].n == 0,
        "hvector of structs round trip (%ld, %ld)", (long)pos, (long)upos);
  /* Its third record's bytes: 'a' 'f' 'c', -5000, 5.0, -0.5. */
  const int hn = hex("61 66 63 ff ff ec 78 4014000000000000 bfe0000000000000", want);
  dump(buf + 46, hn, text);
  CHECK(memcmp(buf + 46, want, (size_t)hn) == 0, "hvector's third record: %s", text);

  /* Sizes. */
  MPI_Aint s1, s2, s3, s4, s5;
  MPI_Pack_external_size(ext32, 5, MPI_INT, &s1);
  MPI_Pack_external_size(ext32, 3, MPI_LONG, &s2);
  MPI_Pack_external_size(ext32, 2, MPI_LONG_DOUBLE, &s3);
  MPI_Pack_external_size(ext32, 4, MPI_DOUBLE_INT, &s4);
  MPI_Pack_external_size(ext32, 0, rt, &s5);
  CHECK(s1 == 20 && s2 == 12 && s3 == 32 && s4 == 48 && s5 == 0, "sizes %ld %ld %ld %ld %ld", (long)s1, (long)s2,
        (long)s3, (long)s4, (long)s5);

  /* Positions over several calls, in and out. */
  int iv = 7;
  long lv = -9;
  double dv = 0.25;
  pos = 0;
  MPI_Aint marks[4];
  MPI_Pack_external(ext32, &iv, 1, MPI_INT, buf, sizeof buf, &pos);
  marks[0] = pos;
  MPI_Pack_external(ext32, &lv, 1, MPI_LONG, buf, sizeof buf, &pos);
  marks[1] = pos;
  MPI_Pack_external(ext32, &dv, 1, MPI_DOUBLE, buf, sizeof buf, &pos);
  marks[2] = pos;
  MPI_Pack_external(ext32, in, 1, rt, buf, sizeof buf, &pos);
  marks[3] = pos;
  CHECK(marks[0] == 4 && marks[1] == 8 && marks[2] == 16 && marks[3] == 39, "positions %ld %ld %ld %ld",
        (long)marks[0], (long)marks[1], (long)marks[2], (long)marks[3]);
  const int pn = hex("00000007 fffffff7 3fd0000000000000 616263 fffffc18", want);
  CHECK(memcmp(buf, want, (size_t)pn) == 0, "the bytes of several calls");
  int iback = 0;
  long lback = 0;
  double dback = 0;
  struct rec rback;
  memset(&rback, 0, sizeof rback);
  MPI_Aint upos2 = 0;
  MPI_Unpack_external(ext32, buf, marks[3], &upos2, &iback, 1, MPI_INT);
  CHECK(upos2 == 4, "unpack position %ld", (long)upos2);
  MPI_Unpack_external(ext32, buf, marks[3], &upos2, &lback, 1, MPI_LONG);
  CHECK(upos2 == 8, "unpack position %ld", (long)upos2);
  MPI_Unpack_external(ext32, buf, marks[3], &upos2, &dback, 1, MPI_DOUBLE);
  CHECK(upos2 == 16, "unpack position %ld", (long)upos2);
  MPI_Unpack_external(ext32, buf, marks[3], &upos2, &rback, 1, rt);
  CHECK(upos2 == 39 && iback == 7 && lback == -9 && dback == 0.25 && same_rec(&rback, &in[0]),
        "several unpacks: %d %ld %g, position %ld", iback, lback, dback, (long)upos2);

  MPI_Type_free(&ht);
  MPI_Type_free(&vt);
  MPI_Type_free(&rt);
}

/* ---- between ranks: external32 bytes as MPI_BYTE to the next rank -------- */
static void check_between_ranks(struct ctx* c) {
  MPI_Datatype rt = rec_type();
  struct rec mine[3], theirs[3];
  for (int k = 0; k < 3; ++k) fill_rec(&mine[k], me + k);
  unsigned char out[3 * 23], in[3 * 23];
  MPI_Aint pos = 0;
  MPI_Pack_external(ext32, mine, 3, rt, out, sizeof out, &pos);
  const int next = (me + 1) % np, prev = (me + np - 1) % np;
  MPI_Sendrecv(out, (int)pos, MPI_BYTE, next, 5, in, sizeof in, MPI_BYTE, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  memset(theirs, 0, sizeof theirs);
  MPI_Aint upos = 0;
  MPI_Unpack_external(ext32, in, sizeof in, &upos, theirs, 3, rt);
  struct rec expect[3];
  int ok = pos == 69 && upos == 69;
  for (int k = 0; k < 3; ++k) {
    fill_rec(&expect[k], prev + k);
    ok = ok && same_rec(&theirs[k], &expect[k]);
  }
  CHECK(ok, "records from rank %d: n %ld %ld %ld", prev, theirs[0].n, theirs[1].n, theirs[2].n);
  MPI_Type_free(&rt);
}

/* ---- errors under MPI_ERRORS_RETURN --------------------------------------- */
static int class_of(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

static void check_errors(struct ctx* c) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  unsigned char buf[16];
  int v[4] = {1, 2, 3, 4};
  MPI_Aint pos = 4;
  int rc = MPI_Pack_external(ext32, v, 4, MPI_INT, buf, sizeof buf, &pos);
  CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_TRUNCATE && pos == 4, "pack beyond outsize: %d, position %ld",
        class_of(rc), (long)pos);
  pos = 0;
  rc = MPI_Pack_external(ext32, v, 4, MPI_INT, buf, 15, &pos);
  CHECK(class_of(rc) == MPI_ERR_TRUNCATE && pos == 0, "pack into 15 bytes: %d", class_of(rc));
  pos = 0;
  rc = MPI_Pack_external(ext32, v, 4, MPI_INT, buf, sizeof buf, &pos);
  CHECK(rc == MPI_SUCCESS && pos == 16, "pack into exactly 16 bytes: %d", rc);
  pos = 4;
  int back[4] = {0, 0, 0, 0};
  rc = MPI_Unpack_external(ext32, buf, sizeof buf, &pos, back, 4, MPI_INT);
  CHECK(class_of(rc) == MPI_ERR_TRUNCATE && pos == 4, "unpack beyond insize: %d", class_of(rc));
  pos = 0;
  rc = MPI_Pack_external("native", v, 1, MPI_INT, buf, sizeof buf, &pos);
  CHECK(class_of(rc) == MPI_ERR_ARG && pos == 0, "datarep native: %d", class_of(rc));
  rc = MPI_Unpack_external("external", buf, sizeof buf, &pos, back, 1, MPI_INT);
  CHECK(class_of(rc) == MPI_ERR_ARG && pos == 0, "datarep external: %d", class_of(rc));
  MPI_Aint size = -1;
  rc = MPI_Pack_external_size("EXTERNAL32", 1, MPI_INT, &size);
  CHECK(class_of(rc) == MPI_ERR_ARG && size == -1, "datarep EXTERNAL32: %d", class_of(rc));
  rc = MPI_Pack_external_size(ext32, 1, (MPI_Datatype)99999, &size);
  CHECK(class_of(rc) == MPI_ERR_TYPE, "an invalid datatype: %d", class_of(rc));
  rc = MPI_Pack_external(ext32, v, -1, MPI_INT, buf, sizeof buf, &pos);
  CHECK(class_of(rc) == MPI_ERR_COUNT, "a negative count: %d", class_of(rc));
  if (sizeof(long) > 4) {
    long big[2] = {1, 0};
    big[1] = (long)(0x7fffffffL + 1L);
    pos = 0;
    rc = MPI_Pack_external(ext32, big, 2, MPI_LONG, buf, sizeof buf, &pos);
    CHECK(rc != MPI_SUCCESS && class_of(rc) == MPI_ERR_CONVERSION && pos == 0, "long 2^31: %d, position %ld",
          class_of(rc), (long)pos);
    big[1] = LONG_MIN;
    rc = MPI_Pack_external(ext32, big, 2, MPI_LONG, buf, sizeof buf, &pos);
    CHECK(class_of(rc) == MPI_ERR_CONVERSION && pos == 0, "LONG_MIN: %d", class_of(rc));
    unsigned long ubig = 0x100000000ul;
    rc = MPI_Pack_external(ext32, &ubig, 1, MPI_UNSIGNED_LONG, buf, sizeof buf, &pos);
    CHECK(class_of(rc) == MPI_ERR_CONVERSION && pos == 0, "unsigned long 2^32: %d", class_of(rc));
    struct { long v; int i; } pair = {-0x80000001L, 1};
    rc = MPI_Pack_external(ext32, &pair, 1, MPI_LONG_INT, buf, sizeof buf, &pos);
    CHECK(class_of(rc) == MPI_ERR_CONVERSION && pos == 0, "MPI_LONG_INT -2^31-1: %d", class_of(rc));
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(MPI_ERR_CONVERSION, text, &len);
  CHECK(len > 0, "MPI_ERR_CONVERSION has a string");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

#ifdef ROAM_AMPI
/* Packed on one PE, unpacked on the next: the buffer (stack and heap) and
 * the derived type move with the rank. */
static void check_across_move(struct ctx* c) {
  MPI_Datatype rt = rec_type(), ht;
  MPI_Type_create_hvector(2, 1, 2 * (MPI_Aint)sizeof(struct rec), rt, &ht);
  MPI_Type_commit(&ht);
  struct rec src[3];
  for (int k = 0; k < 3; ++k) fill_rec(&src[k], 10 * me + k);
  unsigned char on_stack[46];
  unsigned char* on_heap = malloc(46);
  MPI_Aint pos = 0, hpos = 0, size = 0;
  MPI_Pack_external(ext32, src, 1, ht, on_stack, sizeof on_stack, &pos);
  MPI_Pack_external(ext32, src, 2, rt, on_heap, 46, &hpos);
  const int from = AMPI_My_pe();
  AMPI_Migrate_to_pe((from + 1) % AMPI_Num_pes());
  MPI_Pack_external_size(ext32, 1, ht, &size);
  struct rec got[3];
  memset(got, 0, sizeof got);
  MPI_Aint upos = 0;
  MPI_Unpack_external(ext32, on_stack, pos, &upos, got, 1, ht);
  CHECK(size == 46 && pos == 46 && upos == 46 && same_rec(&got[0], &src[0]) && same_rec(&got[2], &src[2]) &&
            got[1].n == 0,
        "hvector after the move (PE %d to %d)", from, AMPI_My_pe());
  memset(got, 0, sizeof got);
  upos = 0;
  MPI_Unpack_external(ext32, on_heap, hpos, &upos, got, 2, rt);
  CHECK(upos == 46 && same_rec(&got[0], &src[0]) && same_rec(&got[1], &src[1]), "structs after the move");
  free(on_heap);
  MPI_Type_free(&ht);
  MPI_Type_free(&rt);
}
#endif

int main(int argc, char** argv) {
  struct ctx context = {0, 0, 0}, *c = &context;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  check_predefined(c);
  check_derived(c);
  check_between_ranks(c);
  check_errors(c);
#ifdef ROAM_AMPI
  check_across_move(c);
#endif
  int total = 0;
  MPI_Allreduce(&c->failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0 && total == 0) printf("ampi_external32: OK (%d ranks)\n", np);
  if (me == 0 && total != 0) printf("ampi_external32: FAILED (%d failed checks)\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
