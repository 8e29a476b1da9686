static const char help[] = "J and its adjoint gradient of an identification scenario, timed: the mbsid side of benchmarks/accuracy_cost.\n"
                           "Options: those of mbsid gradcheck (-options_file, -measurement, -identify, -ts_*), -repeat 3, -fd_gradient.\n";

/*
  benchmarks/cost_gradient: the cost J of the scenario given by the options (as mbsid gradcheck reads them) and
  dJ/dp of the identified parameters by one forward and one adjoint solve, each timed as the best of -repeat runs:

    time_J     J alone (one forward solve and the cost),
    time_grad  J and dJ/dp (forward with the trajectory stored, then the adjoint),
    time_fd    with -fd_gradient: dJ/dp by central differences, 2 P forward solves with the steps 1e-6 |p_k|, run once
               (its largest relative difference from the adjoint gradient as fd_rel_diff, a sanity check).

  Printed as one line in the format of benchmarks/peer_cvodes, so that benchmarks/accuracy_cost compares the two:

    mbsid J <J> grad <g1,g2,...> time_J <s> time_grad <s> steps <accepted steps of the forward solve> grad_per_J <ratio> peak_rss_mb <MB>
          cpu_J <s> cpu_grad <s> [time_fd <s> fd_per_grad <ratio> fd_rel_diff <max_k |fd_k - grad_k| / max_k |grad_k|>]

  cpu_J and cpu_grad are the best process CPU times of the same runs: on a machine that other jobs load, their ratio
  moves less than that of the wall times.

  peak_rss_mb is the process's peak resident set (getrusage), reached by the gradient: what a gradient needs in memory,
  the trajectory among it. (PetscMemorySetGetMaximumUsage() would read /proc at every object PETSc destroys: the
  thousands of vectors of the trajectory that each gradient frees cost powertrain_gradient's gradient 5 % of its time
  that way.)
*/
#include <identification/identificationimpl.h>
#include <petsctime.h>
#include <time.h>
#include <sys/resource.h>

/* Best wall and CPU time of repeat evaluations of J, with the gradient when grad is not NULL, in the log stage of that
   name (-log_view: where each one's time goes) */
static PetscErrorCode TimeEvaluation(MbsObjective obj, const PetscReal x[], PetscReal *J, PetscReal grad[], PetscInt repeat, PetscLogDouble *best, PetscLogDouble *best_cpu)
{
  PetscLogStage stage;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister(grad ? "J and gradient" : "J", &stage));
  PetscCall(PetscLogStagePush(stage));
  *best = *best_cpu = PETSC_MAX_REAL;
  for (PetscInt r = 0; r < repeat; r++) {
    PetscLogDouble start, end;
    clock_t        cpu_start = clock();
    PetscBool      ok;

    PetscCall(PetscTime(&start));
    PetscCall(MbsObjectiveEvaluate(obj, x, J, grad, &ok));
    PetscCall(PetscTime(&end));
    PetscCheck(ok, obj->comm, PETSC_ERR_NOT_CONVERGED, "The forward solve of model %s failed; see -ts_monitor", obj->model->type);
    *best     = PetscMin(*best, end - start);
    *best_cpu = PetscMin(*best_cpu, (PetscLogDouble)(clock() - cpu_start) / CLOCKS_PER_SEC);
  }
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

/* The central-difference gradient, 2 nid forward solves, timed once in its own log stage; *diff is its largest
   difference from grad relative to the largest |grad_k| */
static PetscErrorCode TimeFiniteDifferences(MbsObjective obj, const PetscReal x[], const PetscReal grad[], PetscLogDouble *time, PetscReal *diff)
{
  PetscLogStage  stage;
  PetscLogDouble start, end;
  PetscReal     *xh, gmax = 0, dmax = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister("FD gradient", &stage));
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscMalloc1(obj->nid, &xh));
  PetscCall(PetscArraycpy(xh, x, obj->nid));
  PetscCall(PetscTime(&start));
  for (PetscInt k = 0; k < obj->nid; k++) {
    PetscReal h = 1e-6 * PetscAbsReal(x[k]), Jp, Jm;
    PetscBool okp, okm;

    xh[k] = x[k] + h;
    PetscCall(MbsObjectiveEvaluate(obj, xh, &Jp, NULL, &okp));
    xh[k] = x[k] - h;
    PetscCall(MbsObjectiveEvaluate(obj, xh, &Jm, NULL, &okm));
    xh[k] = x[k];
    PetscCheck(okp && okm, obj->comm, PETSC_ERR_NOT_CONVERGED, "A forward solve of the differences failed; see -ts_monitor");
    gmax = PetscMax(gmax, PetscAbsReal(grad[k]));
    dmax = PetscMax(dmax, PetscAbsReal((Jp - Jm) / (2 * h) - grad[k]));
  }
  PetscCall(PetscTime(&end));
  PetscCall(PetscFree(xh));
  PetscCall(PetscLogStagePop());
  *time = end - start;
  *diff = dmax / gmax;
  PetscFunctionReturn(0);
}

/* Accepted steps of one forward solve of the first experiment */
static PetscErrorCode CountSteps(MbsObjective obj, PetscInt *steps)
{
  MbsSignal signal;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsPush(obj->exp[0].options));
  PetscCall(MbsSimulate(obj->exp[0].model, NULL, NULL, NULL, &signal));
  PetscCall(PetscOptionsPop());
  *steps = signal.steps;
  PetscCall(MbsSignalDestroy(&signal));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsObjective   obj;
  PetscBool      has_help, fd = PETSC_FALSE;
  PetscInt       repeat = 3, steps = 0;
  PetscReal     *x, *grad, J;
  PetscLogDouble time_J, time_grad, cpu_J, cpu_grad, time_fd = 0;
  struct rusage  usage;
  PetscReal      fd_diff = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "benchmarks/cost_gradient", NULL);
  PetscCall(PetscOptionsInt("-repeat", "Timed runs of each evaluation (the best counts)", "", repeat, &repeat, NULL));
  PetscCall(PetscOptionsBool("-fd_gradient", "Also time the central-difference gradient (2 P forward solves, once)", "", fd, &fd, NULL));
  PetscOptionsEnd();
  PetscCheck(repeat >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-repeat must be >= 1, got %" PetscInt_FMT, repeat);
  PetscCall(MbsObjectiveCreate(PETSC_COMM_WORLD, &obj, &has_help));
  if (!has_help) {
    PetscCall(PetscMalloc2(obj->nid, &x, obj->nid, &grad));
    PetscCall(MbsObjectiveGetValues(obj, x));
    PetscCall(TimeEvaluation(obj, x, &J, NULL, repeat, &time_J, &cpu_J));
    PetscCall(TimeEvaluation(obj, x, &J, grad, repeat, &time_grad, &cpu_grad));
    if (fd) PetscCall(TimeFiniteDifferences(obj, x, grad, &time_fd, &fd_diff));
    PetscCall(CountSteps(obj, &steps));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mbsid J %.12e grad ", (double)J));
    for (PetscInt k = 0; k < obj->nid; k++) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s%.12e", k ? "," : "", (double)grad[k]));
    PetscCheck(getrusage(RUSAGE_SELF, &usage) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "getrusage failed");
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, " time_J %.4f time_grad %.4f steps %" PetscInt_FMT " grad_per_J %.2f peak_rss_mb %.1f", time_J, time_grad, steps, time_grad / time_J, usage.ru_maxrss / 1024.0));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, " cpu_J %.4f cpu_grad %.4f", cpu_J, cpu_grad));
    if (fd) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " time_fd %.4f fd_per_grad %.2f fd_rel_diff %.1e", time_fd, time_fd / time_grad, (double)fd_diff));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    PetscCall(PetscFree2(x, grad));
  }
  PetscCall(MbsObjectiveDestroy(&obj));
  PetscCall(PetscFinalize());
  return 0;
}
