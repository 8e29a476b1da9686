/*
  Time-domain cost: J = int (y(t) - y_meas(t))^2 dt against the measured signal (/signal of the
  measurement file), linearly interpolated onto the simulated output. The integral uses the
  integrator's quadrature (its nodes t_n and weights c_n, mbsid.h), J = sum_n c_n (y_n - y_meas(t_n))^2, so its
  adjoint density is r'(t, y) = 2 (y - y_meas(t)).

  When measurement and model share the time grid (a virtual measurement made with the same step) the
  interpolation is exact and the true parameters are the minimum of the discrete J.
*/
#include "costs/costimpl.h"

typedef struct {
  const MbsMeasurement *meas;
  PetscInt              n[MBS_COST_SLOTS];
  PetscReal            *t[MBS_COST_SLOTS], *y[MBS_COST_SLOTS]; /* recorded signals */
} MbsCostTime;

/* The samples i - 1, i of t_src around t, inside [t_src[0], t_src[n-1]], and t's position s in [0, 1] between them */
static void MbsBracket_Private(PetscInt n, const PetscReal t_src[], PetscReal t, PetscInt *i, PetscReal *s)
{
  *i = PetscMin(PetscMax(MbsLowerBound(t_src, n, t), 1), n - 1);
  *s = (t - t_src[*i - 1]) / (t_src[*i] - t_src[*i - 1]);
}

/* Linear interpolation of (t_src, y_src) at t */
static PetscReal MbsInterpolate_Private(PetscInt n, const PetscReal t_src[], const PetscReal y_src[], PetscReal t)
{
  PetscInt  i;
  PetscReal s;

  MbsBracket_Private(n, t_src, t, &i, &s);
  return (1 - s) * y_src[i - 1] + s * y_src[i];
}

static PetscErrorCode MbsCostSetUp_Time(MbsCost cost, const char path[], const MbsMeasurement *meas)
{
  MbsCostTime *ctx   = (MbsCostTime *)cost->data;
  MbsModel     model = cost->model;
  PetscReal    tol   = 1e-9 * (model->tf - model->t0);

  PetscFunctionBeginUser;
  PetscCheck(meas->nsignal >= 2, model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no /signal, which -cost time compares with", path);
  PetscCheck(meas->t[0] <= model->t0 + tol && meas->t[meas->nsignal - 1] >= model->tf - tol, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Measurement file '%s': /signal covers [%g, %g] s, which does not contain the simulated interval [%g, %g] s (-time_span)", path,
             (double)meas->t[0], (double)meas->t[meas->nsignal - 1], (double)model->t0, (double)model->tf);
  ctx->meas = meas;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostEvaluate_Time(MbsCost cost, const MbsSignal *signal, PetscReal *J)
{
  MbsCostTime          *ctx  = (MbsCostTime *)cost->data;
  const MbsMeasurement *meas = ctx->meas;

  PetscFunctionBeginUser;
  *J = 0;
  for (PetscInt i = 0; i < signal->nq; i++) *J += signal->wq[i] * PetscSqr(signal->yq[i] - MbsInterpolate_Private(meas->nsignal, meas->t, meas->y, signal->tq[i]));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostDensity_Time(MbsCost cost, PetscReal t, PetscReal y, PetscReal *drdy)
{
  MbsCostTime *ctx = (MbsCostTime *)cost->data;

  PetscFunctionBeginUser;
  *drdy = 2 * (y - MbsInterpolate_Private(ctx->meas->nsignal, ctx->meas->t, ctx->meas->y, t));
  PetscFunctionReturn(0);
}

/* r_n = y_n - y_meas(t_n) with the quadrature weights c_n; y_meas(t_n) interpolates two measured samples */
static PetscErrorCode MbsCostResiduals_Time(MbsCost cost, const MbsSignal *signal, PetscInt *m, PetscInt *ndata, PetscReal r[], PetscReal w[], PetscInt data[], PetscReal dr_dd[])
{
  const MbsMeasurement *meas = ((MbsCostTime *)cost->data)->meas;

  PetscFunctionBeginUser;
  *m     = signal->nq;
  *ndata = meas->nsignal;
  for (PetscInt n = 0; r && n < signal->nq; n++) {
    PetscInt  i;
    PetscReal s;

    MbsBracket_Private(meas->nsignal, meas->t, signal->tq[n], &i, &s);
    r[n]             = signal->yq[n] - ((1 - s) * meas->y[i - 1] + s * meas->y[i]);
    w[n]             = signal->wq[n];
    data[2 * n]      = i - 1;
    data[2 * n + 1]  = i;
    dr_dd[2 * n]     = -(1 - s);
    dr_dd[2 * n + 1] = -s;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostRecord_Time(MbsCost cost, const MbsSignal *signal, PetscInt slot)
{
  MbsCostTime *ctx = (MbsCostTime *)cost->data;

  PetscFunctionBeginUser;
  PetscCall(PetscFree2(ctx->t[slot], ctx->y[slot]));
  PetscCall(PetscMalloc2(signal->n, &ctx->t[slot], signal->n, &ctx->y[slot]));
  PetscCall(PetscArraycpy(ctx->t[slot], signal->t, signal->n));
  PetscCall(PetscArraycpy(ctx->y[slot], signal->y, signal->n));
  ctx->n[slot] = signal->n;
  PetscFunctionReturn(0);
}

/* /signal/{t, measured, initial, identified} on the samples of the first recorded signal */
static PetscErrorCode MbsCostWrite_Time(MbsCost cost, MbsH5Writer *writer)
{
  MbsCostTime *ctx  = (MbsCostTime *)cost->data;
  const char  *unit = cost->model->output_unit, *slot_name[MBS_COST_SLOTS] = {"initial", "identified"};
  PetscInt     n = ctx->n[0];
  PetscReal   *values;
  char         path[64];

  PetscFunctionBeginUser;
  if (!n) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n, &values));
  PetscCall(MbsH5WriteReals(writer, "/signal/t", 1, &n, ctx->t[0], "s"));
  for (PetscInt i = 0; i < n; i++) values[i] = MbsInterpolate_Private(ctx->meas->nsignal, ctx->meas->t, ctx->meas->y, ctx->t[0][i]);
  PetscCall(MbsH5WriteReals(writer, "/signal/measured", 1, &n, values, unit));
  for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) {
    if (!ctx->n[s]) continue;
    for (PetscInt i = 0; i < n; i++) values[i] = MbsInterpolate_Private(ctx->n[s], ctx->t[s], ctx->y[s], ctx->t[0][i]);
    PetscCall(PetscSNPrintf(path, sizeof(path), "/signal/%s", slot_name[s]));
    PetscCall(MbsH5WriteReals(writer, path, 1, &n, values, unit));
  }
  PetscCall(PetscFree(values));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostDestroy_Time(MbsCost cost)
{
  MbsCostTime *ctx = (MbsCostTime *)cost->data;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) PetscCall(PetscFree2(ctx->t[s], ctx->y[s]));
  PetscCall(PetscFree(cost->data));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostCreate_Time(MbsCost cost)
{
  MbsCostTime *ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ctx));
  cost->data          = ctx;
  cost->ops.set_up    = MbsCostSetUp_Time;
  cost->ops.evaluate  = MbsCostEvaluate_Time;
  cost->ops.density   = MbsCostDensity_Time;
  cost->ops.residuals = MbsCostResiduals_Time;
  cost->ops.record    = MbsCostRecord_Time;
  cost->noise_of      = "each sample of the measured /signal";
  cost->ops.write     = MbsCostWrite_Time;
  cost->ops.destroy   = MbsCostDestroy_Time;
  PetscFunctionReturn(0);
}
