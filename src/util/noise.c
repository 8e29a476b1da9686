/*
  Reproducible Gaussian noise for virtual measurements.

  The standard-normal sequence is the one of ../shared/models/oscillator2.md section 8: splitmix64
  (64-bit unsigned, wrap-around) from the given seed, uniform u = ((z >> 11) + 1/2) 2^-53 in (0, 1),
  and Box-Muller in pairs, n_i = r cos(2 pi u2), n_{i+1} = r sin(2 pi u2), r = sqrt(-2 log u1).
  It gives the same numbers on every machine and every number of MPI ranks.
*/
#include "mbsidimpl.h"

static uint64_t MbsSplitMix64(uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static PetscReal MbsUniform(uint64_t *state)
{
  return ((PetscReal)(MbsSplitMix64(state) >> 11) + 0.5) * 0x1.0p-53;
}

/*@C
  MbsNormalSequence - n standard-normal numbers from the given seed. Not collective.
@*/
PetscErrorCode MbsNormalSequence(PetscInt seed, PetscInt n, PetscReal values[])
{
  uint64_t state = (uint64_t)seed;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i += 2) {
    PetscReal u1 = MbsUniform(&state), u2 = MbsUniform(&state), r = PetscSqrtReal(-2.0 * PetscLogReal(u1));

    values[i] = r * PetscCosReal(2 * PETSC_PI * u2);
    if (i + 1 < n) values[i + 1] = r * PetscSinReal(2 * PETSC_PI * u2);
  }
  PetscFunctionReturn(0);
}

/* Adds sigma times the seeded sequence to y at the step points and, interpolated, to yq at the nodes */
static PetscErrorCode MbsAddNoise_Private(MbsSignal *signal, PetscReal y[], PetscReal yq[], PetscReal sigma, PetscInt seed)
{
  PetscReal *noise;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(signal->n, &noise));
  PetscCall(MbsNormalSequence(seed, signal->n, noise));
  for (PetscInt i = 0; i < signal->n; i++) y[i] += sigma * noise[i];
  for (PetscInt j = 0, i = 1; j < signal->nq && signal->n > 1; j++) {
    PetscReal s;

    while (i < signal->n - 1 && signal->t[i] < signal->tq[j]) i++;
    s = (signal->tq[j] - signal->t[i - 1]) / (signal->t[i] - signal->t[i - 1]);
    yq[j] += sigma * ((1 - s) * noise[i - 1] + s * noise[i]);
  }
  PetscCall(PetscFree(noise));
  PetscFunctionReturn(0);
}

/*@C
  MbsSignalAddNoise - Adds sigma times the seeded standard-normal sequence to the output at the step points, and the
  same noise, linearly interpolated, at the quadrature nodes (the noise of the sampled signal that a spectrum sees).
  Each output channel c gets its own sequence (seed + 1 + c) of channel_sigma[c] in the channel's unit (sigma for
  every channel when channel_sigma is NULL). Not collective.
@*/
PetscErrorCode MbsSignalAddNoise(MbsSignal *signal, PetscReal sigma, const PetscReal channel_sigma[], PetscInt seed)
{
  PetscFunctionBeginUser;
  PetscCheck(sigma >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Noise level must be >= 0, got %g (-noise_sigma)", (double)sigma);
  if (sigma > 0) PetscCall(MbsAddNoise_Private(signal, signal->y, signal->yq, sigma, seed));
  for (PetscInt c = 0; c < signal->nchannel; c++) {
    PetscReal sigma_c = channel_sigma ? channel_sigma[c] : sigma;

    PetscCheck(sigma_c >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Noise level of channel %" PetscInt_FMT " must be >= 0, got %g (-channel_noise)", c, (double)sigma_c);
    if (sigma_c > 0) PetscCall(MbsAddNoise_Private(signal, signal->yc[c], signal->yqc[c], sigma_c, seed + 1 + c));
  }
  PetscFunctionReturn(0);
}

/*@C
  MbsMeasurementScaleNoise - Multiplies every order amplitude (and its coefficients a, b) by 1 + rel n_i, n_i the seeded
  standard-normal sequence in the order of /orders/amplitude: a measured order cut's relative scatter. Not collective.
@*/
PetscErrorCode MbsMeasurementScaleNoise(MbsMeasurement *meas, PetscReal rel, PetscInt seed)
{
  PetscInt   n = meas->nspeed * meas->norder;
  PetscReal *noise;

  PetscFunctionBeginUser;
  PetscCheck(rel >= 0 && rel < 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Relative amplitude noise must lie in [0, 1), got %g (-noise_amplitude_rel)", (double)rel);
  if (rel == 0 || n == 0) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n, &noise));
  PetscCall(MbsNormalSequence(seed, n, noise));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal factor = PetscMax(0, 1 + rel * noise[i]);

    meas->order_amplitude[i] *= factor;
    if (meas->order_a) meas->order_a[i] *= factor;
    if (meas->order_b) meas->order_b[i] *= factor;
  }
  PetscCall(PetscFree(noise));
  PetscFunctionReturn(0);
}
