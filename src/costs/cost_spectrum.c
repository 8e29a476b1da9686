/*
  Spectrum cost: the model's Fourier coefficients A_k, B_k against measured amplitudes |X_k| or coefficients a_k, b_k,

    squared form (default)    J = 1/4 sum_k (A_k^2 + B_k^2 - |X_k|^2)^2
    amplitude form            J = 1/2 sum_k (sqrt(A_k^2 + B_k^2) - |X_k|)^2
    coefficients form         J = 1/2 sum_k [(A_k - a_k)^2 + (B_k - b_k)^2]      (J_id of powertrain_mounts.md 8.4)

  The coefficients form keeps the phase, which amplitudes lose: parameters that move the response's phase more than
  its amplitude (mounts driven above their rigid-body modes, powertrain_mounts.md 9.3) are identifiable from it. Its
  coefficients are those of fourier.c, so the measurement's /spectrum/A, /B refer to the start of the analysis window
  and its /orders/A, /B to t = 0 (the crank angle), as simulate writes them.

  over the measured spectrum lines in the band -band_hz, and/or the engine orders -orders at the measured
  speeds in -speed_rpm. Only these coefficients enter J, so parts of the model outside the band do not
  spoil the fit.

  The coefficient adjoints alpha_k = dJ/dA_k, beta_k = dJ/dB_k are constants once the forward pass is
  done; the adjoint density is G(t) = sum_k 2/L eta(t) (alpha_k cos w_k tau + beta_k sin w_k tau), one
  forcing whatever the number of coefficients.
*/
#include "costs/costimpl.h"

typedef enum {
  MBS_SPECTRUM_SQUARED,
  MBS_SPECTRUM_AMPLITUDE,
  MBS_SPECTRUM_COEFFICIENTS
} MbsSpectrumForm;

static const char *const MbsSpectrumForms[] = {"squared", "amplitude", "coefficients", "MbsSpectrumForm", "MBS_SPECTRUM_", NULL};

typedef struct {
  MbsSpectrumForm   form;
  MbsFourierOptions opts;
  MbsFourier        fourier;                 /* the coefficients in J */
  PetscReal        *measured;                /* |X_k| of each coefficient in J */
  PetscReal        *measured_a, *measured_b; /* a_k, b_k of each coefficient in J (coefficients form) */
  PetscReal        *alpha, *beta;
  /* the adjoint density at the samples of the last evaluation: the adjoint asks for it there, several times */
  PetscInt   nsample, nsample_alloc;
  PetscReal *sample_t, *sample_G;
  PetscBool  density_ready; /* sample_G belongs to the last evaluation */
  /* every measured line and order, for the result file: lines first, then speed-major orders */
  const MbsMeasurement *meas;
  MbsFourier            display;
  PetscReal            *curve[MBS_COST_SLOTS]; /* model amplitudes of the display coefficients */
  PetscBool             use_lines;
  PetscReal             band[2];
  PetscReal             speed_range[2];
} MbsCostSpectrum;

/* The measured lines must be harmonics k/L of the analysis window, or the model's coefficients would not be comparable. */
static PetscErrorCode MbsCostSpectrumAddLines_Private(MbsCost cost, const char path[], const MbsFourierOptions *opts)
{
  MbsCostSpectrum      *ctx  = (MbsCostSpectrum *)cost->data;
  const MbsMeasurement *meas = ctx->meas;
  PetscReal             L    = opts->interval[1] - opts->interval[0];
  PetscInt              ncost;

  PetscFunctionBeginUser;
  PetscCheck(meas->nfreq > 0, cost->model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no /spectrum, which the spectrum cost compares with; give -orders for an order cost", path);
  PetscCheck(ctx->form != MBS_SPECTRUM_COEFFICIENTS || meas->a, cost->model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no datasets '/spectrum/A', '/spectrum/B', which -cost_form coefficients compares with; give -cost_form squared or amplitude, or a measurement with the coefficients", path);
  ctx->band[0] = opts->band_set ? opts->band[0] : meas->frequency[0];
  ctx->band[1] = opts->band_set ? opts->band[1] : meas->frequency[meas->nfreq - 1];
  PetscCheck(ctx->band[1] >= ctx->band[0], cost->model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-band_hz %g,%g: lo must not exceed hi", (double)ctx->band[0], (double)ctx->band[1]);
  for (PetscInt j = 0; j < meas->nfreq; j++) {
    PetscReal f = meas->frequency[j], k = f * L;

    PetscCheck(PetscAbsReal(k - PetscFloorReal(k + 0.5)) <= 1e-6 * PetscMax(1, k), cost->model->comm, PETSC_ERR_ARG_INCOMP, "Measurement file '%s': /spectrum/frequency[%" PetscInt_FMT "] = %g Hz is not a harmonic of the analysis window [%g, %g] s; set -spectrum_interval (or -time_span) to the interval the measurement was analysed over", path, j, (double)f,
               (double)opts->interval[0], (double)opts->interval[1]);
    PetscCall(MbsFourierAddCoefficient(ctx->display, opts->window, opts->interval[0], opts->interval[1], f));
    if (f < ctx->band[0] - 1e-9 * L || f > ctx->band[1] + 1e-9 * L) continue;
    PetscCall(MbsFourierGetNumCoefficients(ctx->fourier, &ncost));
    ctx->measured[ncost] = meas->amplitude[j];
    if (meas->a) {
      ctx->measured_a[ncost] = meas->a[j];
      ctx->measured_b[ncost] = meas->b[j];
    }
    PetscCall(MbsFourierAddCoefficient(ctx->fourier, opts->window, opts->interval[0], opts->interval[1], f));
  }
  PetscCall(MbsFourierGetNumCoefficients(ctx->fourier, &ncost));
  PetscCheck(ncost > 0, cost->model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Measurement file '%s' has no spectrum line in the band -band_hz %g,%g (its lines: %g to %g Hz)", path, (double)ctx->band[0], (double)ctx->band[1], (double)meas->frequency[0],
             (double)meas->frequency[meas->nfreq - 1]);
  PetscFunctionReturn(0);
}

/* The model's and the measurement's order coefficients at the nspeed measured speeds of the range */
static PetscErrorCode MbsCostSpectrumAddMeasuredOrders_Private(MbsCost cost, const char path[], const MbsFourierOptions *opts, PetscInt nspeed, const PetscReal speed[])
{
  MbsCostSpectrum      *ctx  = (MbsCostSpectrum *)cost->data;
  const MbsMeasurement *meas = ctx->meas;

  PetscFunctionBeginUser;
  PetscCheck(nspeed > 0, cost->model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Measurement file '%s' has no speed in -speed_rpm %g,%g (its speeds: %g to %g rpm)", path, (double)ctx->speed_range[0], (double)ctx->speed_range[1], (double)meas->speed[0],
             (double)meas->speed[meas->nspeed - 1]);
  PetscCall(MbsFourierAddOrders(ctx->display, opts->order_window, &opts->speed, opts->domain, meas->norder, meas->order, nspeed, speed));
  PetscCall(MbsFourierAddOrders(ctx->fourier, opts->order_window, &opts->speed, opts->domain, opts->norder, opts->order, nspeed, speed));
  PetscFunctionReturn(0);
}

/* Orders -orders at the measured speeds within -speed_rpm lo,hi; every requested order must have been measured. */
static PetscErrorCode MbsCostSpectrumAddOrders_Private(MbsCost cost, const char path[], const MbsFourierOptions *opts, PetscInt order_index[])
{
  MbsCostSpectrum      *ctx  = (MbsCostSpectrum *)cost->data;
  const MbsMeasurement *meas = ctx->meas;
  PetscReal            *speed;
  PetscInt              nspeed = 0;

  PetscFunctionBeginUser;
  PetscCheck(meas->nspeed > 0, cost->model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no /orders, which -orders compares with", path);
  PetscCheck(ctx->form != MBS_SPECTRUM_COEFFICIENTS || meas->order_a, cost->model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no datasets '/orders/A', '/orders/B', which -cost_form coefficients compares with; give -cost_form squared or amplitude, or a measurement with the coefficients", path);
  PetscCheck(opts->nspeed_range == 0 || opts->nspeed_range == 2, cost->model->comm, PETSC_ERR_ARG_SIZ, "-speed_rpm of a cost selects measured speeds: give lo,hi [rpm]");
  ctx->speed_range[0] = opts->nspeed_range ? opts->speed_range[0] : meas->speed[0];
  ctx->speed_range[1] = opts->nspeed_range ? opts->speed_range[1] : meas->speed[meas->nspeed - 1];
  for (PetscInt o = 0; o < opts->norder; o++) {
    order_index[o] = -1;
    for (PetscInt m = 0; m < meas->norder; m++)
      if (PetscAbsReal(meas->order[m] - opts->order[o]) <= 1e-9 * PetscAbsReal(opts->order[o])) order_index[o] = m;
    PetscCheck(order_index[o] >= 0, cost->model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no order %g in /orders/order (-orders)", path, (double)opts->order[o]);
  }
  if (opts->speed.stationary_rpm > 0) { /* one speed, on the last -window_cycles revolutions of the simulated interval */
    PetscReal n = opts->speed.stationary_rpm, t_u = cost->model->tf, t_l = t_u - opts->window_cycles * 60 / n;
    PetscBool measured = PETSC_FALSE;

    for (PetscInt s = 0; s < meas->nspeed; s++) measured = (PetscBool)(measured || PetscAbsReal(meas->speed[s] - n) <= 1e-9 * n);
    PetscCheck(measured, cost->model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no speed %g rpm in /orders/speed (-stationary_rpm)", path, (double)n);
    PetscCheck(t_l >= cost->model->t0, cost->model->comm, PETSC_ERR_ARG_OUTOFRANGE, "The window of %g revolutions at %g rpm does not fit the simulated interval [%g, %g] s", (double)opts->window_cycles, (double)n, (double)cost->model->t0, (double)t_u);
    ctx->speed_range[0] = ctx->speed_range[1] = n;
    PetscCall(MbsFourierAddStationaryOrders(ctx->display, opts->order_window, t_l, t_u, n, meas->norder, meas->order));
    PetscCall(MbsFourierAddStationaryOrders(ctx->fourier, opts->order_window, t_l, t_u, n, opts->norder, opts->order));
    PetscFunctionReturn(0);
  }
  PetscCheck(!strcmp(meas->order_domain, MbsOrderDomains[opts->domain]), cost->model->comm, PETSC_ERR_ARG_INCOMP, "Measurement file '%s' holds orders analysed in the %s domain, but the model's would be analysed in the %s domain: give -order_domain %s (a measured -speed_profile implies angle)", path,
             meas->order_domain, MbsOrderDomains[opts->domain], meas->order_domain);
  PetscCall(PetscMalloc1(meas->nspeed, &speed));
  for (PetscInt s = 0; s < meas->nspeed; s++)
    if (meas->speed[s] >= ctx->speed_range[0] && meas->speed[s] <= ctx->speed_range[1]) speed[nspeed++] = meas->speed[s];
  MbsCallCleanup(MbsCostSpectrumAddMeasuredOrders_Private(cost, path, opts, nspeed, speed), PetscFree(speed));
  PetscFunctionReturn(0);
}

/* Row of the measured order table that holds the speed [rpm] */
static PetscInt MbsMeasuredSpeedIndex_Private(const MbsMeasurement *meas, PetscReal speed)
{
  PetscInt best = 0;

  for (PetscInt s = 1; s < meas->nspeed; s++)
    if (PetscAbsReal(meas->speed[s] - speed) < PetscAbsReal(meas->speed[best] - speed)) best = s;
  return best;
}

static PetscErrorCode MbsCostSetFromOptions_Spectrum(MbsCost cost)
{
  MbsCostSpectrum       *ctx = (MbsCostSpectrum *)cost->data;
  const MbsSpeedProfile *speed;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSpeedProfile(cost->model, &speed));
  PetscCall(MbsFourierOptionsRead(cost->model->t0, cost->model->tf, speed, &ctx->opts));
  MbsOptionsBegin(cost->model->comm, NULL, "Spectrum cost", "MbsCost");
  PetscCall(PetscOptionsEnum("-cost_form", "squared: 1/4 sum (|X|^2 - |X_meas|^2)^2; amplitude: 1/2 sum (|X| - |X_meas|)^2; coefficients: 1/2 sum (A - a_meas)^2 + (B - b_meas)^2 (needs /spectrum/A,B or /orders/A,B)", "MbsCostSetFromOptions", MbsSpectrumForms,
                             (PetscEnum)ctx->form, (PetscEnum *)&ctx->form, NULL));
  MbsOptionsEnd();
  cost->noise_of = ctx->form == MBS_SPECTRUM_COEFFICIENTS ? "each measured coefficient a, b in the cost" : "each measured amplitude in the cost";
  PetscCall(MbsFourierSetWindowGain(ctx->fourier, ctx->opts.gain));
  PetscCall(MbsFourierSetWindowGain(ctx->display, ctx->opts.gain));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostSetUp_Spectrum(MbsCost cost, const char path[], const MbsMeasurement *meas)
{
  MbsCostSpectrum         *ctx  = (MbsCostSpectrum *)cost->data;
  const MbsFourierOptions *opts = &ctx->opts;
  PetscInt                 ncost, nlines = 0, offset, nspeed, norder, order_index[64];
  const PetscReal         *speed;
  PetscReal                dt_max;

  PetscFunctionBeginUser;
  ctx->meas = meas;
  ncost     = meas->nfreq + meas->nspeed * meas->norder; /* at most */
  PetscCall(PetscMalloc5(ncost, &ctx->measured, ncost, &ctx->measured_a, ncost, &ctx->measured_b, ncost, &ctx->alpha, ncost, &ctx->beta));
  /* lines unless only orders are asked for */
  ctx->use_lines = (PetscBool)(opts->band_set || !opts->norder);
  if (ctx->use_lines) PetscCall(MbsCostSpectrumAddLines_Private(cost, path, opts));
  else if (meas->nfreq > 0) {
    for (PetscInt j = 0; j < meas->nfreq; j++) PetscCall(MbsFourierAddCoefficient(ctx->display, opts->window, opts->interval[0], opts->interval[1], meas->frequency[j]));
  }
  PetscCall(MbsFourierGetNumCoefficients(ctx->fourier, &nlines));
  if (opts->norder) PetscCall(MbsCostSpectrumAddOrders_Private(cost, path, opts, order_index));
  PetscCall(MbsFourierGetOrderLayout(ctx->fourier, &offset, &nspeed, &speed, &norder, NULL));
  for (PetscInt s = 0; s < nspeed; s++) {
    PetscInt ms = MbsMeasuredSpeedIndex_Private(meas, speed[s]);

    for (PetscInt o = 0; o < norder; o++) {
      PetscInt k = offset + s * norder + o, m = ms * meas->norder + order_index[o];

      ctx->measured[k] = meas->order_amplitude[m];
      if (meas->order_a) {
        ctx->measured_a[k] = meas->order_a[m];
        ctx->measured_b[k] = meas->order_b[m];
      }
    }
  }
  PetscCall(PetscInfo(NULL, "Spectrum cost: %" PetscInt_FMT " lines and %" PetscInt_FMT " orders x %" PetscInt_FMT " speeds\n", nlines, norder, nspeed));
  /* adaptive steps stay below the Nyquist step of every analysed frequency, whatever the parameters TAO tries */
  PetscCall(MbsFourierGetNyquistStep(ctx->fourier, &dt_max));
  PetscCall(MbsModelSetAnalysisStep(cost->model, dt_max));
  PetscFunctionReturn(0);
}

/* "Measurement file 'NAME'", the source of the coefficients in messages */
static PetscErrorCode MbsCostSpectrumSource_Private(MbsCost cost, char source[], size_t size)
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(source, size, "Measurement file '%s'", cost->measurement));
  PetscFunctionReturn(0);
}

/* The signal gives every coefficient (MbsFourierCheckSignal), or an error naming the measurement */
static PetscErrorCode MbsCostSpectrumCheckSignal_Private(MbsCost cost, const MbsSignal *signal)
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;
  char             source[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBeginUser;
  PetscCall(MbsCostSpectrumSource_Private(cost, source, sizeof(source)));
  PetscCall(MbsFourierCheckSignal(ctx->fourier, signal, source));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostUsable_Spectrum(MbsCost cost, const MbsSignal *signal, char message[], size_t size)
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;
  char             source[PETSC_MAX_PATH_LEN + 32];

  PetscFunctionBeginUser;
  PetscCall(MbsCostSpectrumSource_Private(cost, source, sizeof(source)));
  PetscCall(MbsFourierExplainAlias(ctx->fourier, signal, source, message, size));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostEvaluate_Spectrum(MbsCost cost, const MbsSignal *signal, PetscReal *J)
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;
  const PetscReal *A, *B;
  PetscInt         ncost;

  PetscFunctionBeginUser;
  PetscCall(MbsCostSpectrumCheckSignal_Private(cost, signal));
  PetscCall(MbsFourierComputeSignal(ctx->fourier, signal));
  PetscCall(MbsFourierGetCoefficients(ctx->fourier, &A, &B));
  PetscCall(MbsFourierGetNumCoefficients(ctx->fourier, &ncost));
  *J = 0;
  for (PetscInt k = 0; k < ncost; k++) {
    PetscReal power = A[k] * A[k] + B[k] * B[k];

    if (ctx->form == MBS_SPECTRUM_SQUARED) {
      PetscReal e = power - ctx->measured[k] * ctx->measured[k];

      *J += 0.25 * e * e;
      ctx->alpha[k] = e * A[k];
      ctx->beta[k]  = e * B[k];
    } else if (ctx->form == MBS_SPECTRUM_COEFFICIENTS) {
      ctx->alpha[k] = A[k] - ctx->measured_a[k];
      ctx->beta[k]  = B[k] - ctx->measured_b[k];
      *J += 0.5 * (ctx->alpha[k] * ctx->alpha[k] + ctx->beta[k] * ctx->beta[k]);
    } else {
      PetscReal amplitude = PetscSqrtReal(power), e = amplitude - ctx->measured[k];

      *J += 0.5 * e * e;
      ctx->alpha[k] = amplitude > 0 ? e * A[k] / amplitude : 0;
      ctx->beta[k]  = amplitude > 0 ? e * B[k] / amplitude : 0;
    }
  }
  if (signal->nq > ctx->nsample_alloc) {
    PetscCall(PetscFree2(ctx->sample_t, ctx->sample_G));
    PetscCall(PetscMalloc2(signal->nq, &ctx->sample_t, signal->nq, &ctx->sample_G));
    ctx->nsample_alloc = signal->nq;
  }
  ctx->nsample = signal->nq;
  PetscCall(PetscArraycpy(ctx->sample_t, signal->tq, signal->nq));
  ctx->density_ready = PETSC_FALSE; /* an adjoint's first request computes it: a forward solve alone does not need it */
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostDensity_Spectrum(MbsCost cost, PetscReal t, PetscReal y, PetscReal *drdy)
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;
  /* the adjoint computes a node's time by another sum than the forward pass did: equal up to a few ulps */
  PetscReal tol = 1e-12 * (PetscAbsReal(t) + cost->model->tf - cost->model->t0);
  PetscInt  i   = MbsLowerBound(ctx->sample_t, ctx->nsample, t - tol);

  PetscFunctionBeginUser;
  if (!ctx->density_ready) {
    PetscCall(MbsFourierAdjointDensitySamples(ctx->fourier, ctx->alpha, ctx->beta, ctx->nsample, ctx->sample_t, ctx->sample_G));
    ctx->density_ready = PETSC_TRUE;
  }
  if (i < ctx->nsample && ctx->sample_t[i] <= t + tol) *drdy = ctx->sample_G[i];
  else PetscCall(MbsFourierAdjointDensity(ctx->fourier, ctx->alpha, ctx->beta, t, drdy));
  PetscFunctionReturn(0);
}

/* J at A_k = B_k = 0: 1/4 sum_k |X_meas,k|^4 (squared form), 1/2 sum_k |X_meas,k|^2 (amplitude form) or
   1/2 sum_k (a_k^2 + b_k^2) (coefficients form) */
static PetscErrorCode MbsCostZeroOutput_Spectrum(MbsCost cost, PetscReal *J)
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;
  PetscInt         ncost;

  PetscFunctionBeginUser;
  PetscCall(MbsFourierGetNumCoefficients(ctx->fourier, &ncost));
  *J = 0;
  for (PetscInt k = 0; k < ncost; k++) {
    PetscReal d2 = ctx->form == MBS_SPECTRUM_COEFFICIENTS ? PetscSqr(ctx->measured_a[k]) + PetscSqr(ctx->measured_b[k]) : PetscSqr(ctx->measured[k]);

    *J += ctx->form == MBS_SPECTRUM_SQUARED ? 0.25 * d2 * d2 : 0.5 * d2;
  }
  PetscFunctionReturn(0);
}

/* One residual per coefficient in J, against its own measured amplitude: e_k = |X_k|^2 - |X_meas,k|^2 with weight 1/4
   (squared form) or |X_k| - |X_meas,k| with weight 1/2 (amplitude form); two in the coefficients form, A_k - a_k and
   B_k - b_k with weight 1/2, each against its own measured value (a_k is value 2k, b_k value 2k + 1) */
static PetscErrorCode MbsCostResiduals_Spectrum(MbsCost cost, const MbsSignal *signal, PetscInt *m, PetscInt *ndata, PetscReal r[], PetscReal w[], PetscInt data[], PetscReal dr_dd[])
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;
  const PetscReal *A, *B;
  PetscInt         ncost;

  PetscFunctionBeginUser;
  PetscCall(MbsFourierGetNumCoefficients(ctx->fourier, &ncost));
  *m     = ctx->form == MBS_SPECTRUM_COEFFICIENTS ? 2 * ncost : ncost;
  *ndata = *m;
  if (!r) PetscFunctionReturn(0);
  PetscCall(MbsFourierGetCoefficients(ctx->fourier, &A, &B));
  if (ctx->form == MBS_SPECTRUM_COEFFICIENTS) {
    for (PetscInt i = 0; i < *m; i++) {
      r[i]             = i % 2 ? B[i / 2] - ctx->measured_b[i / 2] : A[i / 2] - ctx->measured_a[i / 2];
      w[i]             = 0.5;
      data[2 * i]      = i;
      data[2 * i + 1]  = i;
      dr_dd[2 * i]     = -1;
      dr_dd[2 * i + 1] = 0;
    }
    PetscFunctionReturn(0);
  }
  for (PetscInt k = 0; k < *m; k++) {
    PetscReal power = A[k] * A[k] + B[k] * B[k], d = ctx->measured[k];

    r[k]             = ctx->form == MBS_SPECTRUM_SQUARED ? power - d * d : PetscSqrtReal(power) - d;
    w[k]             = ctx->form == MBS_SPECTRUM_SQUARED ? 0.25 : 0.5;
    data[2 * k]      = k;
    data[2 * k + 1]  = k;
    dr_dd[2 * k]     = ctx->form == MBS_SPECTRUM_SQUARED ? -2 * d : -1;
    dr_dd[2 * k + 1] = 0;
  }
  PetscFunctionReturn(0);
}

/* The coefficients are linear in the output: along a tangent signal they move by its own coefficients dA_k, dB_k, and
   the residuals by dA_k, dB_k (coefficients form), (A_k dA_k + B_k dB_k)/|X_k| (amplitude form, 0 at |X_k| = 0) or
   2 (A_k dA_k + B_k dB_k) (squared form). The coefficients of the signal itself are computed again at the end, as the
   cost's other operations read them. */
static PetscErrorCode MbsCostResidualsTangent_Spectrum(MbsCost cost, const MbsSignal *signal, PetscInt ndir, const MbsSignal tangent[], PetscReal dr[])
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;
  const PetscReal *A, *B, *dA, *dB;
  PetscReal       *A0, *B0;
  PetscInt         ncost;

  PetscFunctionBeginUser;
  PetscCall(MbsFourierGetNumCoefficients(ctx->fourier, &ncost));
  PetscCall(MbsFourierGetCoefficients(ctx->fourier, &A, &B));
  PetscCall(PetscMalloc2(ncost, &A0, ncost, &B0));
  PetscCall(PetscArraycpy(A0, A, ncost));
  PetscCall(PetscArraycpy(B0, B, ncost));
  for (PetscInt d = 0; d < ndir; d++) {
    MbsCallUndo(MbsFourierComputeSignal(ctx->fourier, &tangent[d]), PetscFree2(A0, B0));
    PetscCall(MbsFourierGetCoefficients(ctx->fourier, &dA, &dB));
    for (PetscInt k = 0; k < ncost; k++) {
      PetscReal amplitude = PetscSqrtReal(A0[k] * A0[k] + B0[k] * B0[k]), dpower = A0[k] * dA[k] + B0[k] * dB[k];

      if (ctx->form == MBS_SPECTRUM_COEFFICIENTS) {
        dr[2 * k * ndir + d]       = dA[k];
        dr[(2 * k + 1) * ndir + d] = dB[k];
      } else if (ctx->form == MBS_SPECTRUM_SQUARED) dr[k * ndir + d] = 2 * dpower;
      else dr[k * ndir + d] = amplitude > 0 ? dpower / amplitude : 0;
    }
  }
  PetscCall(PetscFree2(A0, B0));
  PetscCall(MbsFourierComputeSignal(ctx->fourier, signal));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostRecord_Spectrum(MbsCost cost, const MbsSignal *signal, PetscInt slot)
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;
  const PetscReal *A, *B;
  PetscInt         n;

  PetscFunctionBeginUser;
  PetscCall(MbsCostSpectrumCheckSignal_Private(cost, signal)); /* the start point's alias is an error, not a failed step */
  PetscCall(MbsFourierGetNumCoefficients(ctx->display, &n));
  if (!ctx->curve[slot]) PetscCall(PetscMalloc1(n, &ctx->curve[slot]));
  PetscCall(MbsFourierComputeSignal(ctx->display, signal));
  PetscCall(MbsFourierGetCoefficients(ctx->display, &A, &B));
  for (PetscInt j = 0; j < n; j++) ctx->curve[slot][j] = PetscSqrtReal(A[j] * A[j] + B[j] * B[j]);
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostWrite_Spectrum(MbsCost cost, MbsH5Writer *writer)
{
  MbsCostSpectrum      *ctx  = (MbsCostSpectrum *)cost->data;
  const MbsMeasurement *meas = ctx->meas;
  const char           *unit = cost->unit, *slot_name[MBS_COST_SLOTS] = {"initial", "identified"};
  char                  path[64];
  PetscInt              offset, nspeed, norder;
  const PetscReal      *speed;

  PetscFunctionBeginUser;
  if (meas->nfreq > 0) {
    PetscInt two = 2;

    PetscCall(MbsH5WriteReals(writer, "/spectrum/frequency", 1, &meas->nfreq, meas->frequency, "Hz"));
    PetscCall(MbsH5WriteReals(writer, "/spectrum/measured", 1, &meas->nfreq, meas->amplitude, unit));
    for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) {
      if (!ctx->curve[s]) continue;
      PetscCall(PetscSNPrintf(path, sizeof(path), "/spectrum/%s", slot_name[s]));
      PetscCall(MbsH5WriteReals(writer, path, 1, &meas->nfreq, ctx->curve[s], unit));
    }
    if (ctx->use_lines) PetscCall(MbsH5WriteReals(writer, "/spectrum/band", 1, &two, ctx->band, "Hz"));
  }
  PetscCall(MbsFourierGetOrderLayout(ctx->display, &offset, &nspeed, NULL, &norder, NULL));
  if (nspeed > 0) { /* the speeds of the display set, which are the selected measured speeds */
    PetscInt   dims[2] = {nspeed, norder}, two = 2;
    PetscReal *measured;

    PetscCall(MbsFourierGetOrderLayout(ctx->display, &offset, &nspeed, &speed, &norder, NULL));
    PetscCall(PetscMalloc1(nspeed * norder, &measured));
    for (PetscInt s = 0; s < nspeed; s++) PetscCall(PetscArraycpy(&measured[s * norder], &meas->order_amplitude[MbsMeasuredSpeedIndex_Private(meas, speed[s]) * meas->norder], norder));
    PetscCall(MbsH5WriteReals(writer, "/orders/speed", 1, &nspeed, speed, "rpm"));
    PetscCall(MbsH5WriteReals(writer, "/orders/order", 1, &meas->norder, meas->order, "1"));
    PetscCall(MbsH5WriteReals(writer, "/orders/measured", 2, dims, measured, unit));
    PetscCall(PetscFree(measured));
    for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) {
      if (!ctx->curve[s]) continue;
      PetscCall(PetscSNPrintf(path, sizeof(path), "/orders/%s", slot_name[s]));
      PetscCall(MbsH5WriteReals(writer, path, 2, dims, ctx->curve[s] + offset, unit));
    }
    PetscCall(MbsH5WriteReals(writer, "/orders/speed_range", 1, &two, ctx->speed_range, "rpm"));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostDestroy_Spectrum(MbsCost cost)
{
  MbsCostSpectrum *ctx = (MbsCostSpectrum *)cost->data;

  PetscFunctionBeginUser;
  PetscCall(MbsFourierDestroy(&ctx->fourier));
  PetscCall(MbsFourierDestroy(&ctx->display));
  PetscCall(MbsFourierOptionsReset(&ctx->opts));
  PetscCall(PetscFree5(ctx->measured, ctx->measured_a, ctx->measured_b, ctx->alpha, ctx->beta));
  PetscCall(PetscFree2(ctx->sample_t, ctx->sample_G));
  for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) PetscCall(PetscFree(ctx->curve[s]));
  PetscCall(PetscFree(cost->data));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostCreate_Spectrum(MbsCost cost)
{
  MbsCostSpectrum *ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ctx));
  PetscCall(MbsFourierCreate(&ctx->fourier));
  PetscCall(MbsFourierCreate(&ctx->display));
  cost->data                 = ctx;
  cost->ops.set_from_options = MbsCostSetFromOptions_Spectrum;
  cost->ops.set_up           = MbsCostSetUp_Spectrum;
  cost->ops.evaluate         = MbsCostEvaluate_Spectrum;
  cost->ops.density          = MbsCostDensity_Spectrum;
  cost->ops.residuals        = MbsCostResiduals_Spectrum;
  cost->ops.zero_output      = MbsCostZeroOutput_Spectrum;
  cost->ops.record           = MbsCostRecord_Spectrum;
  cost->ops.usable           = MbsCostUsable_Spectrum;
  cost->ops.write            = MbsCostWrite_Spectrum;
  cost->ops.destroy          = MbsCostDestroy_Spectrum;

  /* the Jacobian of the residuals, for Gauss-Newton methods (identification/least_squares.c) */
  cost->ops.residuals_tangent = MbsCostResidualsTangent_Spectrum;
  PetscFunctionReturn(0);
}
