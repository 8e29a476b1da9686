/*
  Time-domain cost on the measured samples (/signal of the measurement file) inside the simulated interval:

    J = sum_i w_i (y(t_i) - y_i)^2,   w_i > 0 the trapezoid weights of the sample times t_i,

  so that J approximates int (y - y_meas)^2 dt whatever the integrator, every sample carries weight and J >= 0. The
  integrator steps onto every sample time (MbsModelSetSampleTimes, simulate.c): y(t_i) is a state of the discrete
  solution, not an interpolation between steps, and the adjoint adds dJ/dy = 2 w_i (y(t_i) - y_i) at that step
  (MbsCostStepPoint), so the gradient is exact for the discrete J on fixed and adaptive, implicit and explicit steps.
*/
#include "costs/costimpl.h"

typedef struct {
  const MbsMeasurement *meas;
  PetscInt              first, m; /* the measured samples first .. first + m - 1 lie inside the simulated interval */
  PetscReal            *w;        /* their trapezoid weights [s] */
  PetscInt             *step;     /* the step point of each in the last evaluated signal */
  PetscInt              nstep;    /* step points of that signal */
  PetscReal            *dJdy;     /* dJ/dy_n at its step points */
  PetscBool             recorded[MBS_COST_SLOTS];
  PetscReal            *y[MBS_COST_SLOTS]; /* the model's output at the samples, recorded */
} MbsCostTime;

static PetscErrorCode MbsCostSetUp_Time(MbsCost cost, const char path[], const MbsMeasurement *meas)
{
  MbsCostTime *ctx   = (MbsCostTime *)cost->data;
  MbsModel     model = cost->model;
  PetscReal    tol   = MBS_SAMPLE_RTOL * (model->tf - model->t0);
  PetscInt     last, inner_first, inner_last;

  PetscFunctionBeginUser;
  PetscCheck(meas->nsignal >= 2, model->comm, PETSC_ERR_ARG_WRONG, "Measurement file '%s' has no /signal, which -cost time compares with", path);
  PetscCheck(meas->t[0] <= model->t0 + tol && meas->t[meas->nsignal - 1] >= model->tf - tol, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Measurement file '%s': /signal covers [%g, %g] s, which does not contain the simulated interval [%g, %g] s (-time_span)", path,
             (double)meas->t[0], (double)meas->t[meas->nsignal - 1], (double)model->t0, (double)model->tf);
  ctx->first = MbsLowerBound(meas->t, meas->nsignal, model->t0 - tol);
  last       = MbsLowerBound(meas->t, meas->nsignal, model->tf + tol);
  ctx->m     = last - ctx->first;
  PetscCheck(ctx->m >= 2, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "Measurement file '%s': /signal has %" PetscInt_FMT " sample(s) inside the simulated interval [%.9g, %.9g] s (-time_span); -cost time needs at least 2", path, ctx->m, (double)model->t0,
             (double)model->tf);
  PetscCall(PetscFree2(ctx->w, ctx->step));
  PetscCall(PetscMalloc2(ctx->m, &ctx->w, ctx->m, &ctx->step));
  PetscCall(MbsQuadratureWeights(ctx->m, meas->t + ctx->first, 0.5, ctx->w));
  /* t0 and tf are step points anyway: the integrator is told the samples between them */
  inner_first = MbsLowerBound(meas->t, meas->nsignal, model->t0 + tol);
  inner_last  = MbsLowerBound(meas->t, meas->nsignal, model->tf - tol);
  PetscCall(MbsModelSetSampleTimes(model, inner_last - inner_first, meas->t + inner_first));
  ctx->meas = meas;
  PetscFunctionReturn(0);
}

/* step[i]: the step point of the signal at measured sample i (the integrator steps onto every one) */
static PetscErrorCode MbsCostSampleSteps_Private(MbsCost cost, const MbsSignal *signal, PetscInt step[])
{
  MbsCostTime          *ctx   = (MbsCostTime *)cost->data;
  const MbsMeasurement *meas  = ctx->meas;
  MbsModel              model = cost->model;
  PetscReal             tol   = MBS_SAMPLE_RTOL * (model->tf - model->t0);

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < ctx->m; i++) {
    PetscReal t = meas->t[ctx->first + i];
    PetscInt  n = MbsLowerBound(signal->t, signal->n, t - tol);

    PetscCheck(n < signal->n && signal->t[n] <= t + tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cost time: the solve of model %s has no step point at the sample t = %.17g s of measurement file '%s'", model->type, (double)t, cost->measurement);
    step[i] = n;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostEvaluate_Time(MbsCost cost, const MbsSignal *signal, PetscReal *J)
{
  MbsCostTime          *ctx  = (MbsCostTime *)cost->data;
  const MbsMeasurement *meas = ctx->meas;

  PetscFunctionBeginUser;
  PetscCall(MbsCostSampleSteps_Private(cost, signal, ctx->step));
  if (ctx->nstep != signal->n) {
    PetscCall(PetscFree(ctx->dJdy));
    PetscCall(PetscMalloc1(signal->n, &ctx->dJdy));
    ctx->nstep = signal->n;
  }
  PetscCall(PetscArrayzero(ctx->dJdy, ctx->nstep));
  *J = 0;
  for (PetscInt i = 0; i < ctx->m; i++) {
    PetscReal r = signal->y[ctx->step[i]] - meas->y[ctx->first + i];

    *J += ctx->w[i] * r * r;
    ctx->dJdy[ctx->step[i]] += 2 * ctx->w[i] * r;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostStepPoint_Time(MbsCost cost, PetscInt n, PetscReal t, PetscReal *dJdy)
{
  MbsCostTime *ctx = (MbsCostTime *)cost->data;

  PetscFunctionBeginUser;
  PetscCheck(n >= 0 && n < ctx->nstep, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Cost time: step %" PetscInt_FMT " (t = %g s) of a solve with %" PetscInt_FMT " step points", n, (double)t, ctx->nstep);
  *dJdy = ctx->dJdy[n];
  PetscFunctionReturn(0);
}

/* r_i = y(t_i) - y_i with the weights w_i: each residual moves with its own measured sample */
static PetscErrorCode MbsCostResiduals_Time(MbsCost cost, const MbsSignal *signal, PetscInt *m, PetscInt *ndata, PetscReal r[], PetscReal w[], PetscInt data[], PetscReal dr_dd[])
{
  MbsCostTime          *ctx  = (MbsCostTime *)cost->data;
  const MbsMeasurement *meas = ctx->meas;

  PetscFunctionBeginUser;
  *m     = ctx->m;
  *ndata = meas->nsignal;
  for (PetscInt i = 0; r && i < ctx->m; i++) {
    r[i]             = signal->y[ctx->step[i]] - meas->y[ctx->first + i];
    w[i]             = ctx->w[i];
    data[2 * i]      = ctx->first + i;
    data[2 * i + 1]  = ctx->first + i;
    dr_dd[2 * i]     = -1;
    dr_dd[2 * i + 1] = 0;
  }
  PetscFunctionReturn(0);
}

/* r_i = y(t_i) - y_i moves with the tangent's output at the same step point */
static PetscErrorCode MbsCostResidualsTangent_Time(MbsCost cost, const MbsSignal *signal, PetscInt ndir, const MbsSignal tangent[], PetscReal dr[])
{
  MbsCostTime *ctx = (MbsCostTime *)cost->data;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < ctx->m; i++)
    for (PetscInt d = 0; d < ndir; d++) dr[i * ndir + d] = tangent[d].y[ctx->step[i]];
  PetscFunctionReturn(0);
}

/* J at y = 0: sum_i w_i y_i^2, the measured signal's energy over the simulated interval */
static PetscErrorCode MbsCostZeroOutput_Time(MbsCost cost, PetscReal *J)
{
  MbsCostTime *ctx = (MbsCostTime *)cost->data;

  PetscFunctionBeginUser;
  *J = 0;
  for (PetscInt i = 0; i < ctx->m; i++) *J += ctx->w[i] * PetscSqr(ctx->meas->y[ctx->first + i]);
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostRecord_Time(MbsCost cost, const MbsSignal *signal, PetscInt slot)
{
  MbsCostTime *ctx = (MbsCostTime *)cost->data;
  PetscInt    *step;

  PetscFunctionBeginUser;
  if (!ctx->y[slot]) PetscCall(PetscMalloc1(ctx->m, &ctx->y[slot]));
  PetscCall(PetscMalloc1(ctx->m, &step));
  PetscCall(MbsCostSampleSteps_Private(cost, signal, step));
  for (PetscInt i = 0; i < ctx->m; i++) ctx->y[slot][i] = signal->y[step[i]];
  PetscCall(PetscFree(step));
  ctx->recorded[slot] = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* /signal/{t, measured, initial, identified} on the measured samples the cost compares */
static PetscErrorCode MbsCostWrite_Time(MbsCost cost, MbsH5Writer *writer)
{
  MbsCostTime *ctx  = (MbsCostTime *)cost->data;
  const char  *unit = cost->unit, *slot_name[MBS_COST_SLOTS] = {"initial", "identified"};
  char         path[64];

  PetscFunctionBeginUser;
  if (!ctx->recorded[0]) PetscFunctionReturn(0);
  PetscCall(MbsH5WriteReals(writer, "/signal/t", 1, &ctx->m, ctx->meas->t + ctx->first, "s"));
  PetscCall(MbsH5WriteReals(writer, "/signal/measured", 1, &ctx->m, ctx->meas->y + ctx->first, unit));
  for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) {
    if (!ctx->recorded[s]) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "/signal/%s", slot_name[s]));
    PetscCall(MbsH5WriteReals(writer, path, 1, &ctx->m, ctx->y[s], unit));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsCostDestroy_Time(MbsCost cost)
{
  MbsCostTime *ctx = (MbsCostTime *)cost->data;

  PetscFunctionBeginUser;
  for (PetscInt s = 0; s < MBS_COST_SLOTS; s++) PetscCall(PetscFree(ctx->y[s]));
  PetscCall(PetscFree2(ctx->w, ctx->step));
  PetscCall(PetscFree(ctx->dJdy));
  PetscCall(PetscFree(cost->data));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostCreate_Time(MbsCost cost)
{
  MbsCostTime *ctx;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ctx));
  cost->data            = ctx;
  cost->ops.set_up      = MbsCostSetUp_Time;
  cost->ops.evaluate    = MbsCostEvaluate_Time;
  cost->ops.step_point  = MbsCostStepPoint_Time;
  cost->ops.residuals   = MbsCostResiduals_Time;
  cost->ops.zero_output = MbsCostZeroOutput_Time;
  cost->ops.record      = MbsCostRecord_Time;
  cost->noise_of        = "each sample of the measured /signal";
  cost->ops.write       = MbsCostWrite_Time;
  cost->ops.destroy     = MbsCostDestroy_Time;

  /* the Jacobian of the residuals, for Gauss-Newton methods (identification/least_squares.c) */
  cost->ops.residuals_tangent = MbsCostResidualsTangent_Time;
  PetscFunctionReturn(0);
}
