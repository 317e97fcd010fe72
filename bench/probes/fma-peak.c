// Peak fp32 FMA rate of this CPU, for the rerank report's compute-utilisation note.
// Each thread runs 12 independent vfmadd chains on registers (enough to hide FMA latency on
// two pipes), so the loop is bound by FMA throughput alone: no memory traffic.
//   gcc -O2 -march=native -pthread -o /tmp/fma-peak bench/probes/fma-peak.c
//   flock /tmp/ragrank-bench.lock /tmp/fma-peak 2 512     # threads, vector width (256 or 512)
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS 1000000000L // per thread; 12 FMAs each
float sink[16];           // read by main, so the loops cannot be optimised away

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// One thread's loop at one vector width: 12 independent FMA chains, then their sum stored to `sink`.
// A macro, not a function, because each width has its own vector type and intrinsics.
#define FMA_LOOP(name, vec, set1, fmadd, add, storeu)                                \
  static void *name(void *unused) {                                                \
    vec x[12], m = set1(0.999999f), c = set1(1e-7f);                               \
    for (int i = 0; i < 12; i++) x[i] = set1((float)i);                            \
    for (long n = 0; n < ITERS; n++)                                               \
      _Pragma("GCC unroll 12") for (int i = 0; i < 12; i++) x[i] = fmadd(x[i], m, c); \
    vec s = x[0];                                                                  \
    for (int i = 1; i < 12; i++) s = add(s, x[i]);                                 \
    storeu(sink, s);                                                               \
    return unused;                                                                 \
  }

FMA_LOOP(run512, __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_storeu_ps)
FMA_LOOP(run256, __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_storeu_ps)

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2, width = argc > 2 ? atoi(argv[2]) : 512;
  if (threads < 1 || threads > 64 || (width != 256 && width != 512)) return 2;
  pthread_t t[64];
  double t0 = now();
  for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, width == 512 ? run512 : run256, 0);
  for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
  double dt = now() - t0, flops = (double)threads * ITERS * 12 * (width / 32) * 2;
  printf("%d threads, %d-bit FMA: %.1f GFLOP/s (%.2f s) [%g]\n", threads, width, flops / dt / 1e9, dt, sink[0]);
  return 0;
}
