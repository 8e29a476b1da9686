static const char help[] = "Cost of one adjoint gradient against one forward solve and central differences, for P parameters and N Fourier coefficients.\n"
                           "Options: -masses 1,4,16,64 (P = 2 x masses), -coefficients 1,10,100,1000, -repeat 3, -time_span 0,2, -ts_dt 0.01.\n";

/*
  benchmarks/gradient_cost: model spring_chain with n masses has P = 2n identifiable constants. For every
  (P, N) the spectrum cost over the first N harmonics of the window is evaluated at parameters 10 % off
  the virtual measurement's, and three things are timed side by side, each in its own PETSc log stage:

    forward    J alone (one forward solve and the Fourier coefficients),
    adjoint    J and dJ/dp by one forward and one adjoint solve,
    FD         dJ/dp by central differences, 2P forward solves.

  The forward and adjoint times are the best of -repeat runs; FD runs once. The adjoint/forward ratio
  should stay below 3 whatever P and N, while FD/forward grows like 2P.
*/
#include <mbsid.h>
#include <petsctime.h>

/* Best wall time of repeat evaluations of J (and the gradient when grad is not NULL) */
static PetscErrorCode TimeEvaluation(MbsModel model, MbsCost cost, PetscInt nid, const PetscInt id[], PetscReal grad[], PetscInt repeat, PetscLogStage stage, PetscLogDouble *best)
{
  PetscFunctionBeginUser;
  *best = PETSC_MAX_REAL;
  PetscCall(PetscLogStagePush(stage));
  for (PetscInt r = 0; r < repeat; r++) {
    PetscLogDouble start, end;
    PetscReal      J;
    PetscBool      ok;

    PetscCall(PetscTime(&start));
    PetscCall(MbsGradient(model, cost, nid, id, &J, grad, &ok));
    PetscCall(PetscTime(&end));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Forward solve failed");
    *best = PetscMin(*best, end - start);
  }
  PetscCall(PetscLogStagePop());
  PetscFunctionReturn(0);
}

static PetscErrorCode TimeFiniteDifferences(MbsModel model, MbsCost cost, PetscInt nid, const PetscInt id[], PetscReal p[], PetscLogStage stage, PetscLogDouble *time)
{
  PetscLogDouble start, end;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStagePush(stage));
  PetscCall(PetscTime(&start));
  for (PetscInt k = 0; k < nid; k++) {
    PetscReal p_k = p[id[k]], J[2];
    PetscBool ok;

    for (PetscInt side = 0; side < 2; side++) {
      p[id[k]] = p_k * (side ? 1 - 1e-6 : 1 + 1e-6);
      PetscCall(MbsModelSetParameters(model, p));
      PetscCall(MbsGradient(model, cost, nid, id, &J[side], NULL, &ok));
      PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Forward solve failed");
    }
    p[id[k]] = p_k;
  }
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(PetscTime(&end));
  PetscCall(PetscLogStagePop());
  *time = end - start;
  PetscFunctionReturn(0);
}

/* The virtual measurement: amplitudes of the first ncoef harmonics of [t0, tf] at the model's defaults */
static PetscErrorCode MakeMeasurement(MbsModel model, PetscInt ncoef, MbsMeasurement *meas)
{
  MbsFourier       fourier;
  MbsSignal        signal;
  PetscReal        t0, tf;
  const PetscReal *A, *B;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(meas, sizeof(*meas)));
  PetscCall(MbsModelGetTimeSpan(model, &t0, &tf, NULL));
  PetscCall(MbsSimulate(model, NULL, NULL, NULL, &signal));
  PetscCall(MbsFourierCreate(&fourier));
  PetscCall(MbsFourierAddHarmonics(fourier, "rectangular", t0, tf, 0.5 / (tf - t0), (ncoef + 0.5) / (tf - t0)));
  PetscCall(MbsFourierComputeSignal(fourier, &signal));
  PetscCall(MbsFourierGetCoefficients(fourier, &A, &B));
  meas->nfreq = ncoef;
  PetscCall(PetscMalloc2(ncoef, &meas->frequency, ncoef, &meas->amplitude));
  for (PetscInt k = 0; k < ncoef; k++) {
    meas->frequency[k] = (k + 1) / (tf - t0);
    meas->amplitude[k] = PetscSqrtReal(A[k] * A[k] + B[k] * B[k]);
  }
  PetscCall(MbsFourierDestroy(&fourier));
  PetscCall(MbsSignalDestroy(&signal));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt      masses[16] = {1, 4, 16, 64}, coefficients[16] = {1, 10, 100, 1000}, nmasses = 16, ncoefficients = 16, repeat = 3;
  PetscLogStage stage_forward, stage_adjoint, stage_fd;
  PetscReal     worst = 0;
  PetscBool     set;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "gradient_cost benchmark", "");
  PetscCall(PetscOptionsIntArray("-masses", "Numbers of masses n of spring_chain (P = 2n)", "", masses, &nmasses, &set));
  if (!set) nmasses = 4;
  PetscCall(PetscOptionsIntArray("-coefficients", "Numbers N of Fourier coefficients in the cost", "", coefficients, &ncoefficients, &set));
  if (!set) ncoefficients = 4;
  PetscCall(PetscOptionsInt("-repeat", "Forward and adjoint runs per case (the best counts)", "", repeat, &repeat, NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsSetValue(NULL, "-model", "spring_chain"));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-time_span", &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, "-time_span", "0,2"));
  PetscCall(PetscLogStageRegister("Forward", &stage_forward));
  PetscCall(PetscLogStageRegister("Adjoint gradient", &stage_adjoint));
  PetscCall(PetscLogStageRegister("FD gradient", &stage_fd));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "spring_chain (-time_span, -ts_dt as given, default 0,2 s and 0.01 s), spectrum cost over the first N harmonics; times in s\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%5s %6s %10s %10s %10s %14s %10s\n", "P", "N", "forward", "adjoint", "FD (2P)", "adjoint/fwd", "FD/fwd"));
  for (PetscInt a = 0; a < nmasses; a++) {
    char value[32];

    PetscCall(PetscSNPrintf(value, sizeof(value), "%" PetscInt_FMT, masses[a]));
    PetscCall(PetscOptionsSetValue(NULL, "-spring_chain_masses", value));
    for (PetscInt b = 0; b < ncoefficients; b++) {
      MbsModel       model;
      MbsCost        cost;
      MbsMeasurement meas;
      PetscInt       np, nid = 2 * masses[a], *id;
      PetscReal     *p, *grad, t0, tf;
      PetscLogDouble forward, adjoint, fd = 0;

      PetscCall(MbsModelCreate(PETSC_COMM_SELF, &model));
      PetscCall(MbsModelSetFromOptions(model));
      PetscCall(MbsModelGetSizes(model, NULL, NULL, &np));
      PetscCall(MbsModelGetTimeSpan(model, &t0, &tf, NULL));
      PetscCall(MakeMeasurement(model, coefficients[b], &meas));
      PetscCall(PetscSNPrintf(value, sizeof(value), "%g,%g", 0.5 / (tf - t0), (coefficients[b] + 0.5) / (tf - t0)));
      PetscCall(PetscOptionsSetValue(NULL, "-band_hz", value));
      PetscCall(MbsCostCreate(model, &cost));
      PetscCall(MbsCostSetFromOptions(cost));
      PetscCall(MbsCostSetUp(cost, "(in memory)", &meas));
      PetscCall(PetscMalloc3(np, &p, nid, &id, nid, &grad));
      PetscCall(MbsModelGetParameters(model, p));
      for (PetscInt k = 0; k < nid; k++) {
        id[k] = k;
        p[k] *= 1.1;
      }
      PetscCall(MbsModelSetParameters(model, p));

      PetscCall(TimeEvaluation(model, cost, nid, id, NULL, repeat, stage_forward, &forward));
      PetscCall(TimeEvaluation(model, cost, nid, id, grad, repeat, stage_adjoint, &adjoint));
      PetscCall(TimeFiniteDifferences(model, cost, nid, id, p, stage_fd, &fd));
      worst = PetscMax(worst, adjoint / forward);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%5" PetscInt_FMT " %6" PetscInt_FMT " %10.4f %10.4f %10.3f %14.2f %10.1f\n", nid, coefficients[b], forward, adjoint, fd, adjoint / forward, fd / forward));

      PetscCall(PetscFree3(p, id, grad));
      PetscCall(MbsCostDestroy(&cost));
      PetscCall(PetscFree2(meas.frequency, meas.amplitude));
      PetscCall(MbsModelDestroy(&model));
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Largest adjoint/forward ratio: %.2f\n", (double)worst));
  PetscCall(PetscFinalize());
  return 0;
}
