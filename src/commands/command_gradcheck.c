/*
  mbsid gradcheck: the adjoint gradient of the cost against central finite differences of the same
  discrete cost, per identified parameter,

    2nd order  D(h) = (J(x + h e_k) - J(x - h e_k)) / 2h,
    4th order  D(h) = (8 (J(x + h e_k) - J(x - h e_k)) - (J(x + 2h e_k) - J(x - 2h e_k))) / 12h   (default),

  h = fd_step |x_k|. The 4th-order stencil allows a step large enough that rounding in J does not show
  even for components many orders below the largest one.

  The relative error is |g_adj - D(h)| / max(|D(h)|, 1e-8 max_l |D_l(h)|, S_k), S_k = (|J(x + h e_k) - J(x)| +
  |J(x - h e_k) - J(x)|) / 2h the change of J over the step, about |g_k| away from a stationary point. The floors keep
  a component that vanishes from reporting noise: at the exact optimum the gradient is zero to rounding, and so is
  the difference quotient next to S_k.

  A component that fails is refined before it is called wrong: D(h/2) with the truncation estimate
  u = |D(h) - D(h/2)| / (2^order - 1) of it. Where J is strongly curved (long simulations, large steps) the
  differences at h are off by their truncation, not the adjoint; the adjoint passes when it lies within 2u of
  D(h/2) (the denominator gains 2u/rtol). Fails when an error exceeds -gradcheck_rtol. -fd_parameters limits the
  differences to some components (each costs 2 or 4 forward solves) and reports the others from the adjoint alone.
*/
#include "commands/commandimpl.h"

static PetscErrorCode MbsEvaluateOrFail_Private(MbsObjective obj, const PetscReal x[], PetscReal *J, PetscReal grad[])
{
  PetscBool ok;
  MPI_Comm  comm;
  MbsModel  model;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveEvaluate(obj, x, J, grad, &ok));
  if (!ok) PetscCall(MbsObjectiveViewUnusable(obj)); /* a signal the cost could not use says why, on the rank of its experiment */
  PetscCall(MbsObjectiveGetComm(obj, &comm));
  PetscCall(MbsObjectiveGetModel(obj, &model));
  PetscCheck(ok, comm, PETSC_ERR_NOT_CONVERGED, "The forward simulation of model %s failed during the gradient check, or its steps alias an analysed frequency; see -ts_monitor", model->type);
  PetscFunctionReturn(0);
}

/* D(h) of component k at x (restored on return), and S_k over the step; J is the cost at x */
static PetscErrorCode MbsCentralDifference_Private(MbsObjective obj, PetscReal x[], PetscInt k, PetscReal h, PetscInt order, PetscReal J, PetscReal *difference, PetscReal *step_scale)
{
  PetscReal               x_k = x[k], J_step[4];
  MPI_Comm                comm;
  const MbsParameterInfo *info;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveGetComm(obj, &comm));
  PetscCall(MbsObjectiveGetParameterInfo(obj, k, &info));
  for (PetscInt i = 0; i < order; i++) { /* x + h, x - h, x + 2h, x - 2h */
    x[k] = x_k + (i % 2 ? -1 : 1) * (1 + i / 2) * h;
    PetscCall(MbsEvaluateOrFail_Private(obj, x, &J_step[i], NULL));
    PetscCheck(!PetscIsInfOrNanReal(J_step[i]), comm, PETSC_ERR_FP, "J = %g at %s = %.17g (central differences): not finite", (double)J_step[i], info->name, (double)x[k]);
  }
  x[k]        = x_k;
  *difference = order == 2 ? (J_step[0] - J_step[1]) / (2 * h) : (8 * (J_step[0] - J_step[1]) - (J_step[2] - J_step[3])) / (12 * h);
  if (step_scale) *step_scale = (PetscAbsReal(J_step[0] - J) + PetscAbsReal(J_step[1] - J)) / (2 * h);
  PetscFunctionReturn(0);
}

typedef struct {
  MbsObjective obj;
  PetscReal   *x, *grad, *fd, *step_scale, *error, *uncertainty;
  char        *fd_names[256]; /* -fd_parameters */
  PetscBool   *checked;       /* the components compared with central differences */
} MbsGradcheck;

static PetscErrorCode MbsGradcheckDestroy_Private(MbsGradcheck *gc)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree6(gc->x, gc->grad, gc->fd, gc->step_scale, gc->error, gc->uncertainty));
  PetscCall(PetscFree(gc->checked));
  PetscCall(MbsStringsFree(PETSC_STATIC_ARRAY_LENGTH(gc->fd_names), gc->fd_names));
  PetscCall(MbsObjectiveDestroy(&gc->obj));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsGradcheckRun_Private(MPI_Comm comm, MbsGradcheck *gc)
{
  MbsObjective   obj;
  MbsModel       model;
  MbsCost        cost;
  const char    *cost_type;
  PetscBool      help;
  PetscReal      step = 2e-3, rtol = 1e-6, J, *x, *grad, *fd, *step_scale, *error, *uncertainty, scale = 0, worst = 0;
  PetscLogStage  stage_adjoint, stage_fd;
  PetscLogDouble t0, t1, t2;
  PetscInt       order = 4, nrefined = 0, nid, nfd = PETSC_STATIC_ARRAY_LENGTH(gc->fd_names), nchecked = 0;
  PetscBool      fd_subset, residuals = PETSC_FALSE;

  PetscFunctionBeginUser;
  MbsOptionsBegin(comm, NULL, "mbsid gradcheck: adjoint gradient against central differences", "gradcheck");
  PetscCall(PetscOptionsReal("-fd_step", "Relative step h/|x| of the central differences", "", step, &step, NULL));
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-fd_order", "Order of the central differences, 2 or 4", &order, PETSC_MIN_INT, PETSC_MAX_INT, NULL));
  PetscCall(PetscOptionsReal("-gradcheck_rtol", "Largest relative error accepted", "", rtol, &rtol, NULL));
  PetscCall(PetscOptionsStringArray("-fd_parameters", "Identified parameters whose adjoint derivative is compared with central differences (default: all); the others are reported from the adjoint alone", "", gc->fd_names, &nfd, &fd_subset));
  PetscCall(PetscOptionsBool("-gradcheck_residuals", "Also check the Jacobian of the residuals from forward sensitivities (Gauss-Newton, -tao_type mbslm) against central differences, and 2 J^T r against the adjoint gradient", "MbsObjectiveCheckLeastSquares", residuals, &residuals, NULL));
  MbsOptionsEnd();
  PetscCheck(step > 0 && step < 0.1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-fd_step must lie in (0, 0.1), got %g", (double)step);
  PetscCheck(rtol > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-gradcheck_rtol must be positive, got %g", (double)rtol);
  PetscCheck(order == 2 || order == 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "-fd_order must be 2 or 4, got %" PetscInt_FMT, order);
  PetscCall(MbsObjectiveCreate(comm, &gc->obj, &help));
  obj = gc->obj;
  if (help) PetscFunctionReturn(0);
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsObjectiveGetModel(obj, &model));
  PetscCall(MbsObjectiveGetNumParameters(obj, &nid));
  PetscCall(MbsModelView(model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(PetscMalloc6(nid, &gc->x, nid, &gc->grad, nid, &gc->fd, nid, &gc->step_scale, nid, &gc->error, nid, &gc->uncertainty));
  x           = gc->x;
  grad        = gc->grad;
  fd          = gc->fd;
  step_scale  = gc->step_scale;
  error       = gc->error;
  uncertainty = gc->uncertainty;
  PetscCall(MbsObjectiveGetValues(obj, x));
  PetscCall(PetscMalloc1(nid, &gc->checked));
  for (PetscInt k = 0; k < nid; k++) gc->checked[k] = (PetscBool)!fd_subset;
  for (PetscInt i = 0; fd_subset && i < nfd; i++) {
    PetscBool found = PETSC_FALSE;

    for (PetscInt k = 0; k < nid && !found; k++) {
      const MbsParameterInfo *info;

      PetscCall(MbsObjectiveGetParameterInfo(obj, k, &info));
      PetscCall(PetscStrcmp(gc->fd_names[i], info->name, &found));
      if (found) gc->checked[k] = PETSC_TRUE;
    }
    PetscCheck(found, comm, PETSC_ERR_ARG_WRONG, "-fd_parameters: '%s' is no identified parameter (-identify)", gc->fd_names[i]);
  }

  PetscCall(PetscLogStageRegister("Adjoint gradient", &stage_adjoint));
  PetscCall(PetscLogStageRegister("FD gradient", &stage_fd));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogStagePush(stage_adjoint));
  /* the differences are taken on the steps of this evaluation: with adaptive steps a new step sequence at every
     perturbed point would make J jump by the integration error, which is no derivative */
  PetscCall(MbsObjectiveFreezeSteps(obj, PETSC_TRUE));
  PetscCall(MbsEvaluateOrFail_Private(obj, x, &J, grad));
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&t1));
  PetscCall(PetscLogStagePush(stage_fd));
  for (PetscInt k = 0; k < nid; k++) {
    if (!gc->checked[k]) continue;
    PetscCall(MbsCentralDifference_Private(obj, x, k, step * (x[k] != 0 ? PetscAbsReal(x[k]) : 1), order, J, &fd[k], &step_scale[k]));
    scale = PetscMax(scale, PetscAbsReal(fd[k]));
    nchecked++;
  }
  for (PetscInt k = 0; k < nid; k++) {
    PetscReal h = step * (x[k] != 0 ? PetscAbsReal(x[k]) : 1), relative_floor, half;

    uncertainty[k] = -1;
    error[k]       = 0;
    if (!gc->checked[k]) continue;
    relative_floor = PetscMax(1e-8 * scale, step_scale[k]);
    error[k]       = PetscAbsReal(grad[k] - fd[k]) / PetscMax(PetscMax(PetscAbsReal(fd[k]), relative_floor), PETSC_SMALL * PETSC_SMALL);
    if (error[k] <= rtol) continue;
    PetscCall(MbsCentralDifference_Private(obj, x, k, h / 2, order, J, &half, NULL));
    uncertainty[k] = PetscAbsReal(fd[k] - half) / ((order == 2 ? 4 : 16) - 1);
    fd[k]          = half;
    error[k]       = PetscAbsReal(grad[k] - fd[k]) / PetscMax(PetscMax(PetscMax(PetscAbsReal(fd[k]), relative_floor), 2 * uncertainty[k] / rtol), PETSC_SMALL * PETSC_SMALL);
    nrefined++;
  }
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&t2));
  if (residuals) PetscCall(MbsObjectiveCheckLeastSquares(obj, x, grad, step, rtol)); /* on the same frozen steps */
  PetscCall(MbsObjectiveFreezeSteps(obj, PETSC_FALSE));

  PetscCall(MbsObjectiveGetCost(obj, &cost));
  PetscCall(MbsCostGetType(cost, &cost_type));
  PetscCall(PetscPrintf(comm, "Cost %s: J = %.12e\n", cost_type, (double)J));
  PetscCall(PetscPrintf(comm, "%-8s %-16s %-20s %-20s %-10s %-10s %s\n", "param", "value", "adjoint dJ/dp", "central FD dJ/dp", "rel. error", "S_k", "FD uncertainty (refined at h/2)"));
  for (PetscInt k = 0; k < nid; k++) {
    char                    refined[32] = "";
    const MbsParameterInfo *info;

    if (uncertainty[k] >= 0) PetscCall(PetscSNPrintf(refined, sizeof(refined), "%.3e", (double)uncertainty[k]));
    worst = PetscMax(worst, error[k]);
    PetscCall(MbsObjectiveGetParameterInfo(obj, k, &info));
    if (gc->checked[k]) PetscCall(PetscPrintf(comm, "%-8s %-16.9g %-20.12e %-20.12e %-10.3e %-10.3e %s\n", info->name, (double)x[k], (double)grad[k], (double)fd[k], (double)error[k], (double)step_scale[k], refined));
    else PetscCall(PetscPrintf(comm, "%-8s %-16.9g %-20.12e %-20s\n", info->name, (double)x[k], (double)grad[k], "-"));
  }
  PetscCall(PetscPrintf(comm, "Time: adjoint gradient %.3f s, central differences %.3f s (%" PetscInt_FMT " forward solves)\n", t1 - t0, t2 - t1, order * (nchecked + nrefined)));
  PetscCheck(worst <= rtol, comm, PETSC_ERR_PLIB, "Gradient check FAILED: largest relative error %.3e exceeds -gradcheck_rtol %g", (double)worst, (double)rtol);
  PetscCall(PetscPrintf(comm, "Gradient check passed: largest relative error %.3e <= %g\n", (double)worst, (double)rtol));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandGradcheck(MPI_Comm comm)
{
  MbsGradcheck gc;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&gc, sizeof(gc)));
  MbsCallCleanup(MbsGradcheckRun_Private(comm, &gc), MbsGradcheckDestroy_Private(&gc));
  PetscFunctionReturn(0);
}
