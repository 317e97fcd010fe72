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

static void *run512(void *unused) {
  __m512 x[12], m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < 12; i++) x[i] = _mm512_set1_ps((float)i);
  for (long n = 0; n < ITERS; n++)
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) x[i] = _mm512_fmadd_ps(x[i], m, c);
  __m512 s = x[0];
  for (int i = 1; i < 12; i++) s = _mm512_add_ps(s, x[i]);
  _mm512_storeu_ps(sink, s);
  return unused;
}

static void *run256(void *unused) {
  __m256 x[12], m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (int i = 0; i < 12; i++) x[i] = _mm256_set1_ps((float)i);
  for (long n = 0; n < ITERS; n++)
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) x[i] = _mm256_fmadd_ps(x[i], m, c);
  __m256 s = x[0];
  for (int i = 1; i < 12; i++) s = _mm256_add_ps(s, x[i]);
  _mm256_storeu_ps(sink, s);
  return unused;
}

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
