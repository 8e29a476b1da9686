/*
  mbsid eigen: the modes of the model's linearisation at the given parameters (eigen.c), as a table and in -o eigen.h5
  under /eigen.

  With -controller, the closed-loop modal problem of ../shared/models/pid_sdof.md, section 6: the controller closes the
  loop from the model's output (or the channel -controller_sensor names) to its force coordinate; its gains K_p, K_i,
  K_d are estimated by the PID perturbation at t0 from the static equilibrium (init(t0, 0), sample period
  -controller_dt), or given with -controller_gains. The report has the open loop, the closed loop of Eq. (9) without the integral state, and with it as an extra coordinate
  (/eigen/open_loop, /eigen/closed_loop, /eigen/closed_loop_integral).
*/
#include "commands/commandimpl.h"

/* K_p, K_i, K_d of the controller by the PID perturbation at the model's t0, from rest */
static PetscErrorCode MbsEigenEstimateGains_Private(MbsModel model, MbsController controller, PetscReal dt_sample, PetscReal delta, PetscReal gain[3])
{
  MbsPerturbSettings settings = {MBS_PERTURB_PID, delta * dt_sample, delta * dt_sample, 1, 1, PETSC_FALSE};
  MbsPerturbResult   result;

  PetscFunctionBeginUser;
  PetscCall(MbsControllerInit(controller, model->t0, 0, NULL));
  PetscCall(MbsControllerPerturb(controller, &settings, model->t0, 0, &result));
  PetscCall(PetscArraycpy(gain, result.gain, 3));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsEigenClosedLoop_Private(MPI_Comm comm, MbsModel model, const PetscReal gain[3], PetscBool integral, const MbsEigenResult *open_loop, MbsEigenResult *result)
{
  PetscInt   nq;
  PetscReal *M, *C, *K;

  PetscFunctionBeginUser;
  PetscCall(MbsModelLinearizeClosedLoop(model, gain, integral, &nq, &M, &C, &K));
  PetscCall(MbsEigenComputeOperators(nq, M, C, K, NULL, result));
  PetscCall(PetscFree3(M, C, K));
  PetscCall(PetscPrintf(comm, "Closed loop %s (%" PetscInt_FMT " coordinates):\n", integral ? "with the integral state as an extra coordinate" : "of Eq. (9), without the integral state", nq));
  PetscCall(MbsEigenViewEigenvalues(comm, result, open_loop));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsModel       model;
  MbsController  controller;
  MbsEigenResult result, closed[2];
} MbsEigenCommand;

static PetscErrorCode MbsEigenCommandDestroy_Private(MbsEigenCommand *ec)
{
  PetscFunctionBeginUser;
  PetscCall(MbsEigenResultReset(&ec->closed[0]));
  PetscCall(MbsEigenResultReset(&ec->closed[1]));
  PetscCall(MbsEigenResultReset(&ec->result));
  PetscCall(MbsControllerDestroy(&ec->controller));
  PetscCall(MbsModelDestroy(&ec->model));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsEigenRun_Private(MPI_Comm comm, MbsEigenCommand *ec)
{
  MbsModel        model;
  MbsController   controller = NULL;
  MbsEigenResult *result = &ec->result, *closed = ec->closed;
  char            output[PETSC_MAX_PATH_LEN] = "eigen.h5", sensor[256] = "", kp[80], ki[80], kd[80];
  const char     *sensor_name;
  PetscReal       gain[3] = {0, 0, 0}, dt_sample = 0.01, delta = 0.1;
  PetscInt        ngain = 3;
  PetscBool       help, closed_loop, gains_given;
  PetscMPIInt     rank;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-controller", &closed_loop));
  MbsOptionsBegin(comm, NULL, "mbsid eigen: modes of the linearised model", "eigen");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscCall(PetscOptionsRealArray("-controller_gains", "With -controller: K_p, K_i, K_d to use instead of the estimates", "", gain, &ngain, &gains_given));
  PetscCall(PetscOptionsReal("-controller_dt", "With -controller: sample period dt_sim of the estimate [s]", "", dt_sample, &dt_sample, NULL));
  PetscCall(PetscOptionsReal("-perturb_delta", "With -controller: delta, dt_1 = delta dt_sim", "", delta, &delta, NULL));
  PetscCall(PetscOptionsString("-controller_sensor", "With -controller: the output channel (sensor) of the model that the controller reads (default: the model's output)", "", sensor, sensor, sizeof(sensor), NULL));
  MbsOptionsEnd();
  PetscCheck(!gains_given || ngain == 3, comm, PETSC_ERR_ARG_SIZ, "Option -controller_gains needs exactly 3 values (K_p, K_i, K_d), got %" PetscInt_FMT, ngain);
  for (PetscInt i = 0; gains_given && i < 3; i++) PetscCheck(!PetscIsInfOrNanReal(gain[i]), comm, PETSC_ERR_ARG_OUTOFRANGE, "Option -controller_gains: value %" PetscInt_FMT " is %g, not a finite number", i + 1, (double)gain[i]);
  PetscCheck(dt_sample > 0 && delta > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-controller_dt and -perturb_delta must be positive, got %g and %g", (double)dt_sample, (double)delta);
  PetscCall(MbsModelCreate(comm, &ec->model));
  model = ec->model;
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (closed_loop || help) {
    PetscCall(MbsControllerCreate(comm, &ec->controller));
    controller = ec->controller;
    PetscCall(MbsControllerSetFromOptions(controller));
  }
  if (help) PetscFunctionReturn(0);
  PetscCheck(!sensor[0] || closed_loop, comm, PETSC_ERR_ARG_INCOMP, "-controller_sensor %s needs -controller: without a controller there is no closed loop", sensor);
  PetscCall(MbsModelSetControlSensor(model, sensor));
  PetscCall(MbsModelGetControlSensor(model, &sensor_name, NULL));
  PetscCall(MbsModelControlGainUnits(model, sizeof(kp), kp, ki, kd));
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsModelView(model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(MbsEigenCompute(model, NULL, result));
  PetscCall(PetscPrintf(comm, "Modes of the linearisation of %s (%" PetscInt_FMT " coordinates):\n", model->type, result->nq));
  PetscCall(MbsEigenView(comm, result));
  if (closed_loop) {
    PetscCall(MbsControllerView(controller, PETSC_VIEWER_STDOUT_(comm)));
    PetscCall(PetscPrintf(comm, "The controller reads the %s %s and drives the force input\n", sensor[0] ? "channel" : "output", sensor_name));
    if (!gains_given) {
      PetscCall(MbsEigenEstimateGains_Private(model, controller, dt_sample, delta, gain));
      PetscCall(PetscPrintf(comm, "Gains estimated by perturbation at t0 = %g s from rest (dt_sim %g s, delta %g):\n", (double)model->t0, (double)dt_sample, (double)delta));
    } else PetscCall(PetscPrintf(comm, "Gains given by -controller_gains:\n"));
    PetscCall(PetscPrintf(comm, "  Kp = %.17g %s, Ki = %.17g %s, Kd = %.17g %s\n", (double)gain[0], kp, (double)gain[1], ki, (double)gain[2], kd));
    PetscCall(PetscPrintf(comm, "Open loop (%" PetscInt_FMT " coordinates):\n", result->nq));
    PetscCall(MbsEigenViewEigenvalues(comm, result, NULL));
    PetscCall(MbsEigenClosedLoop_Private(comm, model, gain, PETSC_FALSE, result, &closed[0]));
    PetscCall(MbsEigenClosedLoop_Private(comm, model, gain, PETSC_TRUE, result, &closed[1]));
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    MbsH5Writer writer;

    PetscCall(MbsH5WriterOpen(output, &writer));
    PetscCall(MbsEigenWrite(&writer, "/eigen", result));
    if (closed_loop) {
      PetscInt three = 3;
      char     units[256];

      PetscCall(MbsEigenWrite(&writer, "/eigen/open_loop", result));
      PetscCall(MbsEigenWrite(&writer, "/eigen/closed_loop", &closed[0]));
      PetscCall(MbsEigenWrite(&writer, "/eigen/closed_loop_integral", &closed[1]));
      PetscCall(PetscSNPrintf(units, sizeof(units), "Kp [%s], Ki [%s], Kd [%s]", kp, ki, kd));
      PetscCall(MbsH5WriteReals(&writer, "/eigen/controller_gains", 1, &three, gain, units));
      PetscCall(MbsH5WriteAttribute(&writer, "/eigen/controller_gains", "source", gains_given ? "-controller_gains" : "estimated by perturbation"));
      PetscCall(MbsH5WriteAttribute(&writer, "/eigen/controller_gains", "controller_sensor", sensor_name));
    }
    PetscCall(MbsModelWriteIdentity(model, &writer, "/"));
    PetscCall(MbsH5WriteProvenance(&writer, comm));
    PetscCall(MbsH5WriterClose(&writer));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandEigen(MPI_Comm comm)
{
  MbsEigenCommand ec;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&ec, sizeof(ec)));
  MbsCallCleanup(MbsEigenRun_Private(comm, &ec), MbsEigenCommandDestroy_Private(&ec));
  PetscFunctionReturn(0);
}
