/*
  mbsid eigen: the modes of the model's linearisation at the given parameters (eigen.c), as a table and in -o eigen.h5
  under /eigen.

  With -controller, the closed-loop modal problem of ../shared/models/pid_sdof.md, section 6: the controller closes the
  loop from the model's output (or the channel -controller_sensor names) to its force coordinate; its gains K_p, K_i,
  K_d are estimated by the PID perturbation at t0 from the static equilibrium (init(t0, 0), sample period
  -controller_dt), or given with -controller_gains. A further force with input: true of a model file closes its own
  loop with -FORCE_controller (-FORCE_controller_sensor, -FORCE_controller_gains, ...). The report has the open loop,
  the closed loop of Eq. (9) without the integral states, and with them as extra coordinates (/eigen/open_loop,
  /eigen/closed_loop, /eigen/closed_loop_integral).
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

static PetscErrorCode MbsEigenClosedLoop_Private(MPI_Comm comm, MbsModel model, PetscInt nloop, const PetscInt input[], const PetscReal gain[], PetscBool integral, const MbsEigenResult *open_loop, MbsEigenResult *result)
{
  PetscInt   nq;
  PetscReal *M, *C, *K;

  PetscFunctionBeginUser;
  PetscCall(MbsModelLinearizeClosedLoop(model, nloop, input, gain, integral, &nq, &M, &C, &K));
  PetscCall(MbsEigenComputeOperators(nq, M, C, K, NULL, result));
  PetscCall(PetscFree3(M, C, K));
  PetscCall(PetscPrintf(comm, "Closed loop %s (%" PetscInt_FMT " coordinates):\n", integral ? (nloop > 1 ? "with the integral states as extra coordinates" : "with the integral state as an extra coordinate") : "of Eq. (9), without the integral state", nq));
  PetscCall(MbsEigenViewEigenvalues(comm, result, open_loop));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsModel       model;
  PetscInt       nloop, input[MBS_MAX_CONTROL]; /* the loops: the force input each controller drives */
  MbsController  controller[MBS_MAX_CONTROL];
  PetscReal      gain[3 * MBS_MAX_CONTROL];
  PetscBool      given[MBS_MAX_CONTROL]; /* gains given by -controller_gains, not estimated */
  MbsEigenResult result, closed[2];
} MbsEigenCommand;

static PetscErrorCode MbsEigenCommandDestroy_Private(MbsEigenCommand *ec)
{
  PetscFunctionBeginUser;
  PetscCall(MbsEigenResultReset(&ec->closed[0]));
  PetscCall(MbsEigenResultReset(&ec->closed[1]));
  PetscCall(MbsEigenResultReset(&ec->result));
  for (PetscInt l = 0; l < ec->nloop; l++) PetscCall(MbsControllerDestroy(&ec->controller[l]));
  PetscCall(MbsModelDestroy(&ec->model));
  PetscFunctionReturn(0);
}

/* A loop on force input k: its controller and -controller_gains after the options prefix (NULL for the first input);
   with help, only the options */
static PetscErrorCode MbsEigenAddLoop_Private(MPI_Comm comm, MbsEigenCommand *ec, PetscInt k, const char prefix[], PetscBool controller)
{
  PetscInt   l = ec->nloop, ngain = 3;
  PetscReal *gain = ec->gain + 3 * l;
  char       option[192];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(option, sizeof(option), "-%scontroller_gains", prefix ? prefix : ""));
  MbsOptionsBegin(comm, prefix, "mbsid eigen: a controller in the loop", "eigen");
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-controller_gains", "With -controller: K_p, K_i, K_d to use instead of the estimates", "", 0, gain, &ngain, &ec->given[l]));
  MbsOptionsEnd();
  PetscCheck(!ec->given[l] || ngain == 3, comm, PETSC_ERR_ARG_SIZ, "Option %s needs exactly 3 values (K_p, K_i, K_d), got %" PetscInt_FMT, option, ngain);
  for (PetscInt i = 0; ec->given[l] && i < 3; i++) PetscCheck(!PetscIsInfOrNanReal(gain[i]), comm, PETSC_ERR_ARG_OUTOFRANGE, "Option %s: value %" PetscInt_FMT " is %g, not a finite number", option, i + 1, (double)gain[i]);
  if (!controller) PetscFunctionReturn(0);
  PetscCall(MbsControllerCreate(comm, &ec->controller[l]));
  ec->input[l] = k;
  ec->nloop    = l + 1;
  PetscCall(MbsControllerSetFromOptions(ec->controller[l], prefix));
  PetscFunctionReturn(0);
}

/* Loop l's sensor, its gains (estimated unless given) and what it reads and drives, printed */
static PetscErrorCode MbsEigenLoopSetUp_Private(MPI_Comm comm, MbsEigenCommand *ec, PetscInt l, PetscReal dt_sample, PetscReal delta)
{
  MbsModel   model = ec->model;
  PetscReal *gain  = ec->gain + 3 * l;
  char       prefix[160], kp[80], ki[80], kd[80];

  PetscFunctionBeginUser;
  PetscCall(MbsControllerView(ec->controller[l], PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(MbsModelSetControlLoop(model, ec->input[l], ec->controller[l], PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(MbsModelControlOptionsPrefix(model, ec->input[l], sizeof(prefix), prefix));
  PetscCall(MbsModelControlGainUnits(model, ec->input[l], sizeof(kp), kp, ki, kd));
  if (!ec->given[l]) {
    PetscCall(MbsEigenEstimateGains_Private(model, ec->controller[l], dt_sample, delta, gain));
    PetscCall(PetscPrintf(comm, "Gains estimated by perturbation at t0 = %g s from rest (dt_sim %g s, delta %g):\n", (double)model->t0, (double)dt_sample, (double)delta));
  } else PetscCall(PetscPrintf(comm, "Gains given by -%scontroller_gains:\n", prefix));
  PetscCall(PetscPrintf(comm, "  Kp = %.17g %s, Ki = %.17g %s, Kd = %.17g %s\n", (double)gain[0], kp, (double)gain[1], ki, (double)gain[2], kd));
  PetscFunctionReturn(0);
}

/* /eigen/controller_gains: K_p, K_i, K_d of the one loop (3), or of each loop (nloop x 3), with their sensors and
   forces */
static PetscErrorCode MbsEigenWriteGains_Private(MbsH5Writer *writer, const MbsEigenCommand *ec)
{
  PetscInt    dims[2] = {ec->nloop, 3};
  char        units[256], kp[80], ki[80], kd[80], sensors[512] = "", forces[512] = "", sources[512] = "", option[192], prefix[160];
  const char *sensor, *force;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < ec->nloop; l++) {
    PetscCall(MbsModelGetControlSensor(ec->model, ec->input[l], &sensor, NULL));
    PetscCall(MbsModelGetControlInput(ec->model, ec->input[l], &force));
    PetscCall(MbsStrlcat(sensors, l ? "," : "", sizeof(sensors)));
    PetscCall(MbsStrlcat(sensors, sensor, sizeof(sensors)));
    PetscCall(MbsStrlcat(forces, l ? "," : "", sizeof(forces)));
    PetscCall(MbsStrlcat(forces, force ? force : "force coordinate", sizeof(forces)));
    PetscCall(MbsStrlcat(sources, l ? "," : "", sizeof(sources)));
    PetscCall(MbsModelControlOptionsPrefix(ec->model, ec->input[l], sizeof(prefix), prefix));
    PetscCall(PetscSNPrintf(option, sizeof(option), "-%scontroller_gains", prefix));
    PetscCall(MbsStrlcat(sources, ec->given[l] ? option : "estimated by perturbation", sizeof(sources)));
  }
  PetscCall(MbsModelControlGainUnits(ec->model, ec->input[0], sizeof(kp), kp, ki, kd));
  PetscCall(PetscSNPrintf(units, sizeof(units), ec->nloop > 1 ? "per row: Kp [N/y], Ki [N/(y s)], Kd [N s/y], y in the unit of the loop's sensor" : "Kp [%s], Ki [%s], Kd [%s]", kp, ki, kd));
  PetscCall(MbsH5WriteReals(writer, "/eigen/controller_gains", ec->nloop > 1 ? 2 : 1, ec->nloop > 1 ? dims : dims + 1, ec->gain, units));
  PetscCall(MbsH5WriteAttribute(writer, "/eigen/controller_gains", "source", sources));
  PetscCall(MbsH5WriteAttribute(writer, "/eigen/controller_gains", "controller_sensor", sensors));
  PetscCall(MbsH5WriteAttribute(writer, "/eigen/controller_gains", "controller_force", forces));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsEigenRun_Private(MPI_Comm comm, MbsEigenCommand *ec)
{
  MbsModel        model;
  MbsEigenResult *result = &ec->result, *closed = ec->closed;
  char            output[PETSC_MAX_PATH_LEN] = "eigen.h5";
  PetscReal       dt_sample = 0.01, delta = 0.1;
  PetscInt        ninput;
  PetscBool       help, first, sensor;
  PetscMPIInt     rank;

  PetscFunctionBeginUser;
  MbsOptionsBegin(comm, NULL, "mbsid eigen: modes of the linearised model", "eigen");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscCall(PetscOptionsReal("-controller_dt", "With -controller: sample period dt_sim of the estimate [s]", "", dt_sample, &dt_sample, NULL));
  PetscCall(PetscOptionsReal("-perturb_delta", "With -controller: delta, dt_1 = delta dt_sim", "", delta, &delta, NULL));
  MbsOptionsEnd();
  PetscCheck(dt_sample > 0 && delta > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-controller_dt and -perturb_delta must be positive, got %g and %g", (double)dt_sample, (double)delta);
  PetscCall(MbsModelCreate(comm, &ec->model));
  model = ec->model;
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-controller", &first));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-controller_sensor", &sensor));
  PetscCheck(!sensor || first || help, comm, PETSC_ERR_ARG_INCOMP, "-controller_sensor needs -controller: without a controller there is no closed loop");
  PetscCall(MbsModelGetNumControlInputs(model, &ninput));
  if (ninput || help) PetscCall(MbsEigenAddLoop_Private(comm, ec, 0, NULL, (PetscBool)(first || help)));
  for (PetscInt k = 1; k < ninput; k++) { /* a further force with input: true closes a loop with -FORCE_controller */
    char      prefix[160];
    PetscBool set;

    PetscCall(MbsModelControlOptionsPrefix(model, k, sizeof(prefix), prefix));
    PetscCall(PetscOptionsHasName(NULL, prefix, "-controller", &set));
    if (set || help) PetscCall(MbsEigenAddLoop_Private(comm, ec, k, prefix, PETSC_TRUE));
  }
  if (help) PetscFunctionReturn(0);
  PetscCheck(ninput || !first, comm, PETSC_ERR_SUP, "Model %s has no force input that a controller could close the loop on", model->type);
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));
  PetscCall(MbsModelView(model, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(MbsEigenCompute(model, NULL, result));
  PetscCall(PetscPrintf(comm, "Modes of the linearisation of %s (%" PetscInt_FMT " coordinates):\n", model->type, result->nq));
  PetscCall(MbsEigenView(comm, result));
  if (ec->nloop) {
    for (PetscInt l = 0; l < ec->nloop; l++) PetscCall(MbsEigenLoopSetUp_Private(comm, ec, l, dt_sample, delta));
    PetscCall(PetscPrintf(comm, "Open loop (%" PetscInt_FMT " coordinates):\n", result->nq));
    PetscCall(MbsEigenViewEigenvalues(comm, result, NULL));
    PetscCall(MbsEigenClosedLoop_Private(comm, model, ec->nloop, ec->input, ec->gain, PETSC_FALSE, result, &closed[0]));
    PetscCall(MbsEigenClosedLoop_Private(comm, model, ec->nloop, ec->input, ec->gain, PETSC_TRUE, result, &closed[1]));
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    MbsH5Writer writer;

    PetscCall(MbsH5WriterOpen(output, &writer));
    PetscCall(MbsEigenWrite(&writer, "/eigen", result));
    if (ec->nloop) {
      PetscCall(MbsEigenWrite(&writer, "/eigen/open_loop", result));
      PetscCall(MbsEigenWrite(&writer, "/eigen/closed_loop", &closed[0]));
      PetscCall(MbsEigenWrite(&writer, "/eigen/closed_loop_integral", &closed[1]));
      PetscCall(MbsEigenWriteGains_Private(&writer, ec));
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
