/*
  Frequency-response cost (beam_bushings.md section 9.1) on the complex H_c(f_j) of the measurement's /frf (its
  frequencies f_j at the root, per channel c the measured Hbar_c(f_j) per newton of the load):

    J = sum_c w_c 1/2 sum_j |H_c(f_j; p) - Hbar_c(f_j)|^2,   w_c = 1 / max_j |Hbar_c(f_j)|^2 by default,

  H_c the frequency response of the model's linearisation about its operating point (core/frf.c), exact for a model
  that is linear about its reference state: no simulation, no transient, no window. Its gradient takes one transposed
  solve per frequency and the exact dM/dp, dC/dp, dK/dp and those of the load and output rows (MbsCostGradient,
  MbsFrequencyResponseGradient). The channels' parts hold the measured values; the whole cost solves once per
  frequency for every channel.

  -frf_block i,K keeps the i-th of K contiguous blocks of the measured frequencies (0 <= i < K): K experiments, one
  per block, deal the frequencies over the ranks (-experiments b0,b1,... with -b0_frf_block 0,K ...), and the
  objective sums them in a fixed order. Each block weights its channels by the maximum over all measured frequencies,
  so the blocks' costs add up to J of the whole file.
*/
#include "costs/costimpl.h"

typedef struct {
  char                  load[64]; /* the force element loaded (-frf_load; default: the file's attribute 'load') */
  PetscInt              block[2]; /* -frf_block i,K */
  const MbsMeasurement *meas;     /* of a part: its channel */
  PetscInt              channel;  /* of a part: the model's output channel it compares */
  PetscInt              first, nf;
  PetscReal            *H[MBS_COST_SLOTS]; /* of a part: the model's H (re, im per frequency), recorded */
} MbsCostFrf;

static PetscErrorCode MbsCostSetFromOptions_Frf(MbsCost cost)
{
  MbsCostFrf *ctx   = (MbsCostFrf *)cost->data;
  PetscInt    count = 2;
  PetscBool   set;

  PetscFunctionBeginUser;
  ctx->block[0] = 0;
  ctx->block[1] = 1;
  MbsOptionsBegin(cost->model->comm, NULL, "Frequency-response cost", "MbsCost");
  PetscCall(PetscOptionsString("-frf_load", "Force element whose unit load the frequency response is of (default: the measurement's attribute 'load' of /frf/frequency_hz)", "MbsCostSetUp", ctx->load, ctx->load, sizeof(ctx->load), NULL));
  PetscCall(MbsOptionsIntArray(PetscOptionsObject, "-frf_block", "i,K: compare the i-th of K contiguous blocks of the measured frequencies (one experiment per block)", "MbsCostSetUp", 2, ctx->block, &count, &set));
  MbsOptionsEnd();
  PetscCheck(!set || (count == 2 && ctx->block[1] >= 1 && ctx->block[0] >= 0 && ctx->block[0] < ctx->block[1]), cost->model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-frf_block needs i,K with 0 <= i < K, got %" PetscInt_FMT " value(s) %" PetscInt_FMT ",%" PetscInt_FMT, count,
             ctx->block[0], count > 1 ? ctx->block[1] : 0);
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostSetUp_Frf(MbsCost cost, const char path[], const MbsMeasurement *meas)
{
  MbsCostFrf *ctx   = (MbsCostFrf *)cost->data;
  MbsModel    model = cost->model;
  char        source[PETSC_MAX_PATH_LEN + 64];
  PetscInt    K = ctx->block[1], i = ctx->block[0];

  PetscFunctionBeginUser;
  PetscCheck(meas->nfrf > 0, model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no /frf/frequency_hz, which -cost frf compares with (mbsid frf writes one)", path);
  PetscCheck(meas->frf_re, model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s': channel %s has no /frf/real and /frf/imag, which -cost frf compares", path, cost->channel_name[0] ? cost->channel_name : model->output_name);
  PetscCheck(K <= meas->nfrf, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "-frf_block %" PetscInt_FMT ",%" PetscInt_FMT ": measurement file '%s' has only %" PetscInt_FMT " frequencies", i, K, path, meas->nfrf);
  if (!ctx->load[0]) PetscCall(PetscStrncpy(ctx->load, meas->frf_load, sizeof(ctx->load)));
  PetscCall(PetscSNPrintf(source, sizeof(source), "Measurement file '%s'", path));
  ctx->channel = cost->channel;
  if (ctx->channel < 0) PetscCall(MbsModelFindChannel(model, model->output_name, source, &ctx->channel));
  ctx->first = (i * meas->nfrf) / K;
  ctx->nf    = ((i + 1) * meas->nfrf) / K - ctx->first;
  ctx->meas  = meas;
  PetscFunctionReturn(0);
}

/* max_j |Hbar(f_j)|^2 over every measured frequency (beam_bushings.md 9.1), whose inverse is the channel's weight */
static PetscErrorCode MbsCostZeroOutput_Frf(MbsCost cost, PetscReal *size)
{
  MbsCostFrf *ctx = (MbsCostFrf *)cost->data;

  PetscFunctionBeginUser;
  *size = 0;
  for (PetscInt j = 0; j < ctx->meas->nfrf; j++) *size = PetscMax(*size, PetscSqr(ctx->meas->frf_re[j]) + PetscSqr(ctx->meas->frf_im[j]));
  PetscFunctionReturn(0);
}

/* J and dJ/dRe H, dJ/dIm H of every channel the parts compare, from H (nf x nchannel x 2) */
static PetscErrorCode MbsCostMisfit_Frf(MbsCost cost, PetscInt nchannel, const PetscReal H[], PetscReal *J, PetscReal dJdH[])
{
  PetscFunctionBeginUser;
  *J = 0;
  for (PetscInt c = 0; c < cost->npart; c++) {
    const MbsCostFrf *part = (const MbsCostFrf *)cost->part[c]->data;

    for (PetscInt j = 0; j < part->nf; j++) {
      PetscInt  at = 2 * (j * nchannel + part->channel);
      PetscReal rr = H[at] - part->meas->frf_re[part->first + j], ri = H[at + 1] - part->meas->frf_im[part->first + j];

      *J += cost->weight[c] * 0.5 * (rr * rr + ri * ri);
      dJdH[at] += cost->weight[c] * rr;
      dJdH[at + 1] += cost->weight[c] * ri;
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostGradientWithin_Frf(MbsCost cost, PetscInt nchannel, PetscInt nid, const PetscInt id[], PetscReal H[], PetscReal dJdH[], PetscReal weight[], PetscReal *J, PetscReal grad[], PetscReal G[])
{
  const MbsCostFrf *first = (const MbsCostFrf *)cost->part[0]->data;
  const PetscReal  *f     = first->meas->frf_frequency + first->first;
  const char       *load  = first->load[0] ? first->load : NULL;

  PetscFunctionBeginUser;
  PetscCall(MbsFrequencyResponse(cost->model, load, first->nf, f, H));
  PetscCall(MbsCostMisfit_Frf(cost, nchannel, H, J, dJdH));
  if (!grad && !G) PetscFunctionReturn(0);
  for (PetscInt c = 0; c < cost->npart; c++) weight[((const MbsCostFrf *)cost->part[c]->data)->channel] = cost->weight[c];
  if (grad) PetscCall(PetscArrayzero(grad, nid));
  PetscCall(MbsFrequencyResponseGradient(cost->model, load, first->nf, f, dJdH, weight, nid, id, grad, G));
  PetscFunctionReturn(0);
}

/* J, (grad not NULL) dJ/dp of the parameters id and (G not NULL) the Gauss-Newton matrix, on the whole cost: one solve
   for all channels per frequency */
static PetscErrorCode MbsCostGradient_Frf(MbsCost cost, PetscInt nid, const PetscInt id[], PetscReal *J, PetscReal grad[], PetscReal G[])
{
  const MbsCostFrf *first = (const MbsCostFrf *)cost->part[0]->data;
  PetscInt          nchannel;
  PetscReal        *H, *dJdH, *weight;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumChannels(cost->model, &nchannel));
  PetscCall(PetscCalloc3(2 * nchannel * first->nf, &H, 2 * nchannel * first->nf, &dJdH, nchannel, &weight));
  MbsCallCleanup(MbsCostGradientWithin_Frf(cost, nchannel, nid, id, H, dJdH, weight, J, grad, G), PetscFree3(H, dJdH, weight));
  PetscFunctionReturn(0);
}

/* A part keeps its channel's H at the current parameters (the signal is NULL: the cost simulates nothing) */
static PetscErrorCode MbsCostRecord_Frf(MbsCost cost, const MbsSignal *signal, PetscInt slot)
{
  MbsCostFrf *ctx = (MbsCostFrf *)cost->data;
  PetscInt    nchannel;
  PetscReal  *H;

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetNumChannels(cost->model, &nchannel));
  if (!ctx->H[slot]) PetscCall(PetscMalloc1(2 * ctx->nf, &ctx->H[slot]));
  PetscCall(PetscMalloc1(2 * nchannel * ctx->nf, &H));
  MbsCallUndo(MbsFrequencyResponse(cost->model, ctx->load[0] ? ctx->load : NULL, ctx->nf, ctx->meas->frf_frequency + ctx->first, H), PetscFree(H));
  for (PetscInt j = 0; j < ctx->nf; j++) {
    ctx->H[slot][2 * j]     = H[2 * (j * nchannel + ctx->channel)];
    ctx->H[slot][2 * j + 1] = H[2 * (j * nchannel + ctx->channel) + 1];
  }
  PetscCall(PetscFree(H));
  PetscFunctionReturn(0);
}

/* /frf/{frequency_hz, measured, initial, identified} (nf x (re, im)) of the compared frequencies */
static PetscErrorCode MbsCostWrite_Frf(MbsCost cost, MbsH5Writer *writer)
{
  MbsCostFrf *ctx       = (MbsCostFrf *)cost->data;
  const char *slot_name = NULL;
  char        unit[80], path[64];
  PetscInt    dims[2] = {ctx->nf, 2};
  PetscReal  *measured;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(unit, sizeof(unit), "%s/N (re, im)", cost->unit));
  PetscCall(MbsH5WriteReals(writer, "/frf/frequency_hz", 1, &ctx->nf, ctx->meas->frf_frequency + ctx->first, "Hz"));
  PetscCall(PetscMalloc1(2 * ctx->nf, &measured));
  for (PetscInt j = 0; j < ctx->nf; j++) {
    measured[2 * j]     = ctx->meas->frf_re[ctx->first + j];
    measured[2 * j + 1] = ctx->meas->frf_im[ctx->first + j];
  }
  MbsCallCleanup(MbsH5WriteReals(writer, "/frf/measured", 2, dims, measured, unit), PetscFree(measured));
  for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) {
    if (!ctx->H[s]) continue;
    slot_name = s ? "identified" : "initial";
    PetscCall(PetscSNPrintf(path, sizeof(path), "/frf/%s", slot_name));
    PetscCall(MbsH5WriteReals(writer, path, 2, dims, ctx->H[s], unit));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostDestroy_Frf(MbsCost cost)
{
  MbsCostFrf *ctx = (MbsCostFrf *)cost->data;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) PetscCall(PetscFree(ctx->H[s]));
  PetscCall(PetscFree(cost->data));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostCreate_Frf(MbsCost cost)
{
  MbsCostFrf *ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ctx));
  cost->data                 = ctx;
  cost->ops.set_from_options = MbsCostSetFromOptions_Frf;
  cost->ops.set_up           = MbsCostSetUp_Frf;
  cost->ops.gradient         = MbsCostGradient_Frf;
  cost->ops.zero_output      = MbsCostZeroOutput_Frf;
  cost->ops.record           = MbsCostRecord_Frf;
  cost->ops.write            = MbsCostWrite_Frf;
  cost->ops.destroy          = MbsCostDestroy_Frf;
  cost->noise_of             = "the real and imaginary part of each measured H(f)";
  PetscFunctionReturn(0);
}
