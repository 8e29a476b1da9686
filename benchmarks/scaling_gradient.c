static const char help[] = "Times the identification gradient over the experiments of the options on the ranks it is started with.\n"
                           "Options: the identification's (experiments, model, measurement, -identify), -repeat 5.\n";

/*
  One line for benchmarks/scaling: the wall time of one gradient (J and dJ/dp over all experiments, each rank
  computing its share, then the ordered reduction), the best of -repeat, and each rank's busy time in the
  experiments' solves during those gradients, from which the load imbalance max/mean follows.
*/
#include <identification/identificationimpl.h>
#include <petsctime.h>

int main(int argc, char **argv)
{
  MbsObjective  obj;
  PetscBool     has_help, ok;
  PetscInt      repeat = 5;
  PetscReal    *x, *grad, J, busy = 0, busy_max, busy_sum, best = PETSC_MAX_REAL;
  PetscMPIInt   rank, size;
  PetscLogStage stage;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-repeat", &repeat, NULL));
  PetscCall(MbsObjectiveCreate(PETSC_COMM_WORLD, &obj, &has_help));
  PetscCall(PetscMalloc2(obj->nid, &x, obj->nid, &grad));
  PetscCall(MbsObjectiveGetValues(obj, x));
  PetscCall(MbsObjectiveEvaluate(obj, x, &J, grad, &ok)); /* warm-up: first touch of every code path */
  for (PetscInt e = 0; e < obj->nexp; e++) obj->exp[e].busy = 0;
  PetscCall(PetscLogStageRegister("Gradient", &stage));
  PetscCall(PetscLogStagePush(stage));
  for (PetscInt r = 0; r < repeat; r++) {
    PetscLogDouble start, end, elapsed, elapsed_max;

    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    PetscCall(PetscTime(&start));
    PetscCall(MbsObjectiveEvaluate(obj, x, &J, grad, &ok));
    PetscCall(PetscTime(&end));
    elapsed = end - start;
    PetscCallMPI(MPI_Allreduce(&elapsed, &elapsed_max, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    best = PetscMin(best, elapsed_max);
    PetscCheck(ok, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "A forward solve failed");
  }
  PetscCall(PetscLogStagePop());
  for (PetscInt e = 0; e < obj->nexp; e++)
    if (obj->exp[e].rank == rank) busy += obj->exp[e].busy / repeat;
  PetscCallMPI(MPI_Allreduce(&busy, &busy_max, 1, MPIU_REAL, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&busy, &busy_sum, 1, MPIU_REAL, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ranks %d experiments %" PetscInt_FMT " gradient_s %.6f busy_max_s %.6f busy_mean_s %.6f J %.17g\n", size, obj->nexp, best, busy_max, busy_sum / size, (double)J));
  PetscCall(PetscFree2(x, grad));
  PetscCall(MbsObjectiveDestroy(&obj));
  PetscCall(PetscFinalize());
  return 0;
}
