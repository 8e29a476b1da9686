/*
  mbsid gradcheck: the adjoint gradient of the cost against central finite differences of the same
  discrete cost, per identified parameter,

    2nd order  g_fd = (J(x + h e_k) - J(x - h e_k)) / 2h,
    4th order  g_fd = (8 (J(x + h e_k) - J(x - h e_k)) - (J(x + 2h e_k) - J(x - 2h e_k))) / 12h   (default),

  h = fd_step |x_k|. The 4th-order stencil allows a step large enough that rounding in J does not show
  even for components many orders below the largest one.

  with the relative error |g_adj - g_fd| / max(|g_fd|, 1e-8 max_l |g_fd,l|) (the floor keeps a component
  that vanishes from reporting noise). Fails when an error exceeds -gradcheck_rtol.
*/
#include "commands/commandimpl.h"

static PetscErrorCode MbsEvaluateOrFail_Private(MbsObjective obj, const PetscReal x[], PetscReal *J, PetscReal grad[])
{
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(MbsObjectiveEvaluate(obj, x, J, grad, &ok));
  PetscCheck(ok, obj->comm, PETSC_ERR_NOT_CONVERGED, "The forward simulation of model %s failed during the gradient check; see -ts_monitor", obj->model->type);
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandGradcheck(MPI_Comm comm)
{
  MbsObjective   obj;
  PetscBool      help;
  PetscReal      step = 2e-3, rtol = 1e-6, J, *x, *grad, *fd, scale = 0, worst = 0;
  PetscLogStage  stage_adjoint, stage_fd;
  PetscLogDouble t0, t1, t2;
  PetscInt       order = 4;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "mbsid gradcheck: adjoint gradient against central differences", "gradcheck");
  PetscCall(PetscOptionsReal("-fd_step", "Relative step h/|x| of the central differences", "", step, &step, NULL));
  PetscCall(PetscOptionsInt("-fd_order", "Order of the central differences, 2 or 4", "", order, &order, NULL));
  PetscCall(PetscOptionsReal("-gradcheck_rtol", "Largest relative error accepted", "", rtol, &rtol, NULL));
  PetscOptionsEnd();
  PetscCheck(step > 0 && step < 0.1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-fd_step must lie in (0, 0.1), got %g", (double)step);
  PetscCheck(order == 2 || order == 4, comm, PETSC_ERR_ARG_OUTOFRANGE, "-fd_order must be 2 or 4, got %" PetscInt_FMT, order);
  PetscCall(MbsObjectiveCreate(comm, &obj, &help));
  if (help) {
    PetscCall(MbsObjectiveDestroy(&obj));
    PetscFunctionReturn(0);
  }
  PetscCall(MbsModelView(obj->model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(PetscMalloc3(obj->nid, &x, obj->nid, &grad, obj->nid, &fd));
  PetscCall(MbsObjectiveGetValues(obj, x));

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
  for (PetscInt k = 0; k < obj->nid; k++) {
    PetscReal x_k = x[k], h = step * (x_k != 0 ? PetscAbsReal(x_k) : 1), J_step[4];

    for (PetscInt i = 0; i < order; i++) { /* x + h, x - h, x + 2h, x - 2h */
      x[k] = x_k + (i % 2 ? -1 : 1) * (1 + i / 2) * h;
      PetscCall(MbsEvaluateOrFail_Private(obj, x, &J_step[i], NULL));
      PetscCheck(!PetscIsInfOrNanReal(J_step[i]), comm, PETSC_ERR_FP, "J = %g at %s = %.17g (central differences): not finite", (double)J_step[i], obj->model->param_info[obj->id[k]].name, (double)x[k]);
    }
    x[k]  = x_k;
    fd[k] = order == 2 ? (J_step[0] - J_step[1]) / (2 * h) : (8 * (J_step[0] - J_step[1]) - (J_step[2] - J_step[3])) / (12 * h);
    scale = PetscMax(scale, PetscAbsReal(fd[k]));
  }
  PetscCall(PetscLogStagePop());
  PetscCall(PetscTime(&t2));
  PetscCall(MbsObjectiveFreezeSteps(obj, PETSC_FALSE));

  PetscCall(PetscPrintf(comm, "Cost %s: J = %.12e\n", obj->cost->type, (double)J));
  PetscCall(PetscPrintf(comm, "%-8s %-16s %-20s %-20s %s\n", "param", "value", "adjoint dJ/dp", "central FD dJ/dp", "rel. error"));
  for (PetscInt k = 0; k < obj->nid; k++) {
    PetscReal denominator = PetscMax(PetscAbsReal(fd[k]), 1e-8 * scale), error = PetscAbsReal(grad[k] - fd[k]) / (denominator > 0 ? denominator : 1);

    worst = PetscMax(worst, error);
    PetscCall(PetscPrintf(comm, "%-8s %-16.9g %-20.12e %-20.12e %.3e\n", obj->model->param_info[obj->id[k]].name, (double)x[k], (double)grad[k], (double)fd[k], (double)error));
  }
  PetscCall(PetscPrintf(comm, "Time: adjoint gradient %.3f s, central differences %.3f s (%" PetscInt_FMT " forward solves)\n", t1 - t0, t2 - t1, order * obj->nid));
  PetscCheck(worst <= rtol, comm, PETSC_ERR_PLIB, "Gradient check FAILED: largest relative error %.3e exceeds -gradcheck_rtol %g", (double)worst, (double)rtol);
  PetscCall(PetscPrintf(comm, "Gradient check passed: largest relative error %.3e <= %g\n", (double)worst, (double)rtol));

  PetscCall(PetscFree3(x, grad, fd));
  PetscCall(MbsObjectiveDestroy(&obj));
  PetscFunctionReturn(0);
}
