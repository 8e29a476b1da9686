/*
  mbsid perturb: gains of a black-box controller estimated by perturbation (../shared/models/pid_sdof.md, sections 4
  and 5) while it runs in a loop. The plant is the model with the controller closing the loop from its output (or the
  channel of -controller_sensor) to its force coordinate (-perturb_plant model, pid_sdof by default), or a prescribed
  motion r(t) = A sin(2 pi f t) (-perturb_plant prescribed -prescribed_motion A,f; A = 0 is the static equilibrium of
  T3), sampled every -controller_dt seconds. A further force with input: true of a model file gets its own controller
  in the same loop with -FORCE_controller (-FORCE_controller_sensor, ...). At each of -perturb_times the estimator
  perturbs every controller and restores it.

  The run is made twice, with the perturbations and without: the controller outputs and plant outputs of the two must
  agree bit for bit, or the command fails (a perturbation that left a trace in the controller). Results in -o under
  /perturbation (a further controller's under /perturbation/loops/FORCE): the estimates, the sampled signals of both
  runs, the controller and the settings.
*/
#include "commands/commandimpl.h"
#include "controllers/controllerimpl.h"

typedef enum {
  MBS_PLANT_MODEL,
  MBS_PLANT_PRESCRIBED
} MbsPlantType;
static const char *const MbsPlantTypes[] = {"model", "prescribed", "MbsPlantType", "MBS_PLANT_", NULL};

#define MBS_MAX_PERTURB_TIMES 1000

typedef struct {
  MbsController      controller;
  PetscInt           input; /* the force input the controller drives */
  MbsPerturbSettings settings;
  PetscReal          dt_sample;
  PetscInt           ntimes, next_time;
  PetscReal          times[MBS_MAX_PERTURB_TIMES];
  PetscBool          perturb; /* this pass perturbs */
  PetscInt           nsample, nalloc;
  PetscReal         *t, *y, *u; /* the samples of this pass */
  PetscInt           nresult;
  MbsPerturbResult   results[MBS_MAX_PERTURB_TIMES];
} MbsPerturbRun;

/* One pass: a run per loop (controller) */
typedef struct {
  PetscInt       nloop;
  PetscInt       input[MBS_MAX_CONTROL];
  MbsPerturbRun *run[MBS_MAX_CONTROL];
} MbsPerturbPass;

/* The sampler of loop l: its controller's init or step, then a perturbation where one is due */
static PetscErrorCode MbsPerturbSample(MbsModel model, PetscInt l, PetscInt n, PetscReal t, PetscReal y, PetscReal *u, void *ctx)
{
  MbsPerturbRun *run = ((MbsPerturbPass *)ctx)->run[l];

  PetscFunctionBeginUser;
  if (n == 0) PetscCall(MbsControllerInit(run->controller, t, y, u));
  else PetscCall(MbsControllerStep(run->controller, t, y, run->dt_sample, u));
  if (run->nsample == run->nalloc) {
    run->nalloc = PetscMax(64, 2 * run->nalloc);
    PetscCall(PetscRealloc(run->nalloc * sizeof(PetscReal), &run->t));
    PetscCall(PetscRealloc(run->nalloc * sizeof(PetscReal), &run->y));
    PetscCall(PetscRealloc(run->nalloc * sizeof(PetscReal), &run->u));
  }
  run->t[run->nsample] = t;
  run->y[run->nsample] = y;
  run->u[run->nsample] = *u;
  run->nsample++;
  if (run->perturb && run->next_time < run->ntimes && PetscAbsReal(t - run->times[run->next_time]) <= 1e-9 * run->dt_sample) {
    PetscCall(MbsControllerPerturb(run->controller, &run->settings, t, y, &run->results[run->nresult++]));
    run->next_time++;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsPerturbPass_Private(MbsModel model, MbsPlantType plant, const PetscReal motion[2], MbsPerturbPass *pass, PetscBool perturb)
{
  MbsPerturbRun *run = pass->run[0];

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < pass->nloop; l++) {
    pass->run[l]->perturb   = perturb;
    pass->run[l]->nsample   = 0;
    pass->run[l]->next_time = 0;
    pass->run[l]->nresult   = 0;
  }
  if (plant == MBS_PLANT_MODEL) {
    MbsSignal         signal;
    TSConvergedReason reason;
    PetscReal         t_end;

    PetscCall(MbsSimulateClosedLoop(model, NULL, run->dt_sample, pass->nloop, pass->input, MbsPerturbSample, pass, &signal));
    reason = signal.reason;
    t_end  = signal.t_end;
    PetscCall(MbsSignalDestroy(&signal));
    PetscCheck(reason >= 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "The closed-loop simulation of %s failed at t = %g s (%s); the controller's last output was u = %g at t = %g s", model->type, (double)t_end, TSConvergedReasons[reason],
               (double)run->u[run->nsample - 1], (double)run->t[run->nsample - 1]);
  } else {
    PetscInt samples = (PetscInt)PetscFloorReal((model->tf - model->t0) / run->dt_sample * (1 + 1e-12));

    for (PetscInt n = 0; n <= samples; n++) {
      PetscReal t = model->t0 + n * run->dt_sample, u;

      PetscCall(MbsPerturbSample(model, 0, n, t, motion[0] * PetscSinReal(2 * PETSC_PI * motion[1] * t), &u, pass));
    }
  }
  for (PetscInt l = 0; l < pass->nloop; l++) PetscCheck(pass->run[l]->next_time == run->ntimes || !perturb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Perturbation time %g s was not reached", (double)run->times[pass->run[l]->next_time]);
  PetscFunctionReturn(0);
}

/* A time given by the user must be one of the controller's samples in the simulated interval */
static PetscErrorCode MbsPerturbCheckTimes_Private(MbsModel model, const char option[], PetscReal dt, PetscInt n, const PetscReal times[])
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    PetscReal k = (times[i] - model->t0) / dt;

    PetscCheck(times[i] >= model->t0 && times[i] <= model->tf * (1 + 1e-12) && PetscAbsReal(k - round(k)) <= 1e-9, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Option %s: %g s is not a sample time t0 + n %g s in the simulated interval [%g, %g] s", option, (double)times[i], (double)dt,
               (double)model->t0, (double)model->tf);
    PetscCheck(i == 0 || times[i] > times[i - 1], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Option %s: the times must increase (%g after %g)", option, (double)times[i], (double)times[i - 1]);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsPerturbView_Private(MPI_Comm comm, const MbsPerturbRun *run, PetscBool view_system)
{
  const MbsPerturbSettings *s = &run->settings;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "Estimates (%s, dt_1 = %g s, dy_1 = %g, substeps %" PetscInt_FMT "%s):\n", MbsPerturbMethods[s->method], (double)s->dt, (double)s->dy, s->substeps, s->method == MBS_PERTURB_PID ? (s->separate ? ", separate flat steps" : ", one flat step") : ""));
  if (s->method == MBS_PERTURB_PID) PetscCall(PetscPrintf(comm, "     t0 [s]           y0                 Kp                       Ki                       Kd\n"));
  else
    PetscCall(PetscPrintf(comm, "     t0 [s]           y0                 du (black box)           increment (formula)      K%s\n", s->method == MBS_PERTURB_DOUBLE_DERIVATIVE ? "                        dy_j2                    dydot_j (41)" : ""));
  for (PetscInt i = 0; i < run->nresult; i++) {
    const MbsPerturbResult *r = &run->results[i];

    if (s->method == MBS_PERTURB_PID) {
      PetscCall(PetscPrintf(comm, "  %10.6f  % .10e  % .17e  % .17e  % .17e\n", (double)r->t0, (double)r->y0, (double)r->gain[0], (double)r->gain[1], (double)r->gain[2]));
      if (view_system)
        for (PetscInt j = 0; j < 3; j++)
          PetscCall(PetscPrintf(comm, "    row %" PetscInt_FMT " of (49): [% .17e % .17e % .17e] = % .17e\n", j + 1, (double)r->matrix[3 * j], (double)r->matrix[3 * j + 1], (double)r->matrix[3 * j + 2], (double)r->rhs[j]));
    } else {
      PetscCall(PetscPrintf(comm, "  %10.6f  % .10e  % .17e  % .17e  % .17e", (double)r->t0, (double)r->y0, (double)r->du, (double)r->increment[0], (double)r->gain[0]));
      if (s->method == MBS_PERTURB_DOUBLE_DERIVATIVE) PetscCall(PetscPrintf(comm, "  % .17e  % .17e", (double)r->increment[1], (double)r->increment[2]));
      PetscCall(PetscPrintf(comm, "\n"));
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsPerturbWriteReals_Private(MbsH5Writer *writer, const char group[], const char name[], PetscInt rank, const PetscInt dims[], const PetscReal data[], const char units[])
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", group, name));
  PetscCall(MbsH5WriteReals(writer, path, rank, dims, data, units));
  PetscFunctionReturn(0);
}

/* One loop's estimates, samples and controller under group */
static PetscErrorCode MbsPerturbWriteLoop_Private(MbsH5Writer *writer, const char group[], MbsModel model, const MbsPerturbRun *run, const MbsPerturbRun *reference, MbsPlantType plant)
{
  PetscInt           n = run->nresult, ngain = run->settings.method == MBS_PERTURB_PID ? 3 : 1, nparam;
  PetscInt           dims_gain[2] = {n, ngain}, dims_matrix[3] = {n, 3, 3}, dims_rhs[2] = {n, 3};
  PetscReal         *time, *y0, *gain, *matrix, *rhs, *du, *increment;
  const PetscReal   *params;
  const char *const *names;
  const char        *sensor, *unit, *force;
  char               text[64], kp[80], ki[80], kd[80], gain_units[256];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(n, &time, n, &y0, n * 3, &gain, n * 9, &matrix, n * 3, &rhs));
  PetscCall(PetscMalloc2(n, &du, n * 3, &increment));
  for (PetscInt i = 0; i < n; i++) {
    time[i] = run->results[i].t0;
    y0[i]   = run->results[i].y0;
    du[i]   = run->results[i].du;
    for (PetscInt k = 0; k < ngain; k++) gain[i * ngain + k] = run->results[i].gain[k];
    for (PetscInt k = 0; k < 9; k++) matrix[9 * i + k] = run->results[i].matrix[k];
    for (PetscInt k = 0; k < 3; k++) {
      rhs[3 * i + k]       = run->results[i].rhs[k];
      increment[3 * i + k] = run->results[i].increment[k];
    }
  }
  PetscCall(MbsModelGetControlSensor(model, run->input, &sensor, &unit));
  PetscCall(MbsModelControlGainUnits(model, run->input, sizeof(kp), kp, ki, kd));
  PetscCall(PetscSNPrintf(gain_units, sizeof(gain_units), "Kp [%s], Ki [%s], Kd [%s]", kp, ki, kd));
  PetscCall(MbsPerturbWriteReals_Private(writer, group, "time", 1, &n, time, "s"));
  PetscCall(MbsPerturbWriteReals_Private(writer, group, "y0", 1, &n, y0, unit));
  PetscCall(MbsPerturbWriteReals_Private(writer, group, "gains", 2, dims_gain, gain, ngain == 3 ? gain_units : "gain of the method"));
  if (ngain == 3) {
    PetscCall(MbsPerturbWriteReals_Private(writer, group, "matrix", 3, dims_matrix, matrix, "rows [dy_j, (y0 + dy_j/2) dt_j, dy_j/dt_j] of (49)"));
    PetscCall(MbsPerturbWriteReals_Private(writer, group, "rhs", 2, dims_rhs, rhs, "du_j [N]"));
  } else {
    PetscCall(MbsPerturbWriteReals_Private(writer, group, "du", 1, &n, du, "N"));
    PetscCall(MbsPerturbWriteReals_Private(writer, group, "increment", 2, dims_rhs, increment, "input increment of the formula; double derivation: ydd_j, dy_j2, dydot_j"));
  }
  PetscCall(MbsPerturbWriteReals_Private(writer, group, "signal/t", 1, &run->nsample, run->t, "s"));
  PetscCall(MbsPerturbWriteReals_Private(writer, group, "signal/y", 1, &run->nsample, run->y, unit));
  PetscCall(MbsPerturbWriteReals_Private(writer, group, "signal/u", 1, &run->nsample, run->u, "N"));
  PetscCall(MbsPerturbWriteReals_Private(writer, group, "reference/y", 1, &reference->nsample, reference->y, unit));
  PetscCall(MbsPerturbWriteReals_Private(writer, group, "reference/u", 1, &reference->nsample, reference->u, "N"));
  PetscCall(PetscFree5(time, y0, gain, matrix, rhs));
  PetscCall(PetscFree2(du, increment));
  if (plant == MBS_PLANT_MODEL) {
    PetscCall(MbsH5WriteAttribute(writer, group, "controller_sensor", sensor));
    PetscCall(MbsModelGetControlInput(model, run->input, &force));
    if (force) PetscCall(MbsH5WriteAttribute(writer, group, "controller_force", force));
  }
  PetscCall(MbsH5WriteAttribute(writer, group, "controller", run->controller->symbol));
  PetscCall(MbsH5WriteAttribute(writer, group, "controller_source", run->controller->source));
  PetscCall(MbsControllerGetParams(run->controller, &nparam, &params, &names));
  for (PetscInt i = 0; i < nparam; i++) {
    char name[80];

    PetscCall(PetscSNPrintf(name, sizeof(name), "controller_%s", names[i]));
    PetscCall(PetscSNPrintf(text, sizeof(text), "%.17g", (double)params[i]));
    PetscCall(MbsH5WriteAttribute(writer, group, name, text));
  }
  PetscFunctionReturn(0);
}

/* The first loop under /perturbation, every further one (a further force with input: true) under
   /perturbation/loops/FORCE */
static PetscErrorCode MbsPerturbWrite_Private(MPI_Comm comm, const char output[], MbsModel model, const MbsPerturbPass *pass, const MbsPerturbPass *reference, MbsPlantType plant)
{
  const MbsPerturbRun *run = pass->run[0];
  MbsH5Writer          writer;
  char                 text[64];

  PetscFunctionBeginUser;
  PetscCall(MbsH5WriterOpen(output, &writer));
  for (PetscInt l = 0; l < pass->nloop; l++) {
    const char *force;
    char        group[PETSC_MAX_PATH_LEN] = "/perturbation";

    PetscCall(MbsModelGetControlInput(model, pass->input[l], &force));
    if (l) PetscCall(PetscSNPrintf(group, sizeof(group), "/perturbation/loops/%s", force));
    PetscCall(MbsPerturbWriteLoop_Private(&writer, group, model, pass->run[l], reference->run[l], plant));
  }
  PetscCall(MbsH5WriteAttribute(&writer, "/perturbation", "method", MbsPerturbMethods[run->settings.method]));
  PetscCall(MbsH5WriteAttribute(&writer, "/perturbation", "plant", plant == MBS_PLANT_MODEL ? model->type : "prescribed motion"));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%.17g", (double)run->dt_sample));
  PetscCall(MbsH5WriteAttribute(&writer, "/perturbation", "controller_dt", text));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%.17g", (double)run->settings.dt));
  PetscCall(MbsH5WriteAttribute(&writer, "/perturbation", "dt_1", text));
  PetscCall(PetscSNPrintf(text, sizeof(text), "%" PetscInt_FMT, run->settings.substeps));
  PetscCall(MbsH5WriteAttribute(&writer, "/perturbation", "substeps", text));
  PetscCall(MbsModelWriteIdentity(model, &writer, "/"));
  PetscCall(MbsH5WriteProvenance(&writer, comm));
  PetscCall(MbsH5WriterClose(&writer));
  PetscFunctionReturn(0);
}

/* Every rank ran the same controller on the same plant: a rank that disagrees has a controller that is not deterministic */
static PetscErrorCode MbsPerturbCheckRanks_Private(MPI_Comm comm, const MbsPerturbRun *run)
{
  PetscReal sum = 0, low, high;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < run->nsample; i++) sum += run->u[i];
  for (PetscInt i = 0; i < run->nresult; i++) sum += run->results[i].gain[0] + run->results[i].gain[1] + run->results[i].gain[2];
  PetscCallMPI(MPI_Allreduce(&sum, &low, 1, MPIU_REAL, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(&sum, &high, 1, MPIU_REAL, MPI_MAX, comm));
  PetscCheck(low == high, comm, PETSC_ERR_PLIB, "Controller %s gave different results on different ranks (checksums %.17g and %.17g): it is not deterministic", run->controller->symbol, (double)low, (double)high);
  PetscFunctionReturn(0);
}

/* The run with perturbations against the run without, bit for bit, and across ranks */
static PetscErrorCode MbsPerturbCheckRun_Private(MPI_Comm comm, const MbsPerturbRun *run, const MbsPerturbRun *reference)
{
  PetscBool same = (PetscBool)(run->nsample == reference->nsample);

  PetscFunctionBeginUser;
  if (same) PetscCall(PetscArraycmp(run->u, reference->u, run->nsample, &same));
  if (same) PetscCall(PetscArraycmp(run->y, reference->y, run->nsample, &same));
  PetscCheck(same, comm, PETSC_ERR_PLIB, "Controller %s: the run with perturbations differs from the run without; the controller's state does not hold every internal variable (save/restore)", run->controller->symbol);
  PetscCall(MbsPerturbCheckRanks_Private(comm, run));
  PetscFunctionReturn(0);
}

typedef struct {
  MbsModel       model;
  MbsPerturbPass pass[2]; /* with and without perturbations; loop l's controller (pass 0's) serves both */
} MbsPerturbCommand;

static PetscErrorCode MbsPerturbCommandDestroy_Private(MbsPerturbCommand *pc)
{
  PetscFunctionBeginUser;
  for (PetscInt p = 0; p < 2; p++)
    for (PetscInt l = 0; l < pc->pass[p].nloop; l++) {
      MbsPerturbRun *run = pc->pass[p].run[l];

      PetscCall(PetscFree(run->t));
      PetscCall(PetscFree(run->y));
      PetscCall(PetscFree(run->u));
      if (p == 0) PetscCall(MbsControllerDestroy(&run->controller));
      PetscCall(PetscFree(pc->pass[p].run[l]));
    }
  PetscCall(MbsModelDestroy(&pc->model));
  PetscFunctionReturn(0);
}

/* A loop on force input k, its controller read with the options prefix (NULL: -controller, ...) */
static PetscErrorCode MbsPerturbAddLoop_Private(MPI_Comm comm, MbsPerturbCommand *pc, PetscInt k, const char prefix[])
{
  PetscInt l = pc->pass[0].nloop;

  PetscFunctionBeginUser;
  for (PetscInt p = 0; p < 2; p++) {
    PetscCall(PetscNew(&pc->pass[p].run[l]));
    pc->pass[p].input[l] = k;
    pc->pass[p].nloop    = l + 1;
  }
  PetscCall(MbsControllerCreate(comm, &pc->pass[0].run[l]->controller));
  PetscCall(MbsControllerSetFromOptions(pc->pass[0].run[l]->controller, prefix));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsPerturbRun_Private(MPI_Comm comm, MbsPerturbCommand *pc)
{
  MbsModel        model;
  MbsPerturbRun  *run;
  MbsPerturbPass *pass = &pc->pass[0], *reference = &pc->pass[1];
  MbsPlantType    plant     = MBS_PLANT_MODEL;
  PetscReal       motion[2] = {0, 1}, delta = 0.1, dy = -1, output_times[MBS_MAX_PERTURB_TIMES] = {0};
  PetscInt        noutput_times              = MBS_MAX_PERTURB_TIMES, ninput;
  char            output[PETSC_MAX_PATH_LEN] = "perturb.h5";
  const char     *sensor;
  PetscBool       help, view_system = PETSC_FALSE, times_set, output_times_set;
  PetscMPIInt     rank;

  PetscFunctionBeginUser;
  PetscCall(MbsModelCreate(comm, &pc->model));
  model = pc->model;
  PetscCall(MbsModelSetType(model, "pid_sdof"));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  PetscCall(MbsPerturbAddLoop_Private(comm, pc, 0, NULL));
  PetscCall(MbsModelGetNumControlInputs(model, &ninput));
  for (PetscInt k = 1; k < ninput; k++) { /* a further force with input: true: a controller with -FORCE_controller */
    char      prefix[160];
    PetscBool set;

    PetscCall(MbsModelControlOptionsPrefix(model, k, sizeof(prefix), prefix));
    PetscCall(PetscOptionsHasName(NULL, prefix, "-controller", &set));
    if (set || help) PetscCall(MbsPerturbAddLoop_Private(comm, pc, k, prefix));
  }
  run                    = pass->run[0];
  run->dt_sample         = 0.01;
  run->settings.method   = MBS_PERTURB_PID;
  run->settings.j        = 1;
  run->settings.substeps = 1;
  run->ntimes            = MBS_MAX_PERTURB_TIMES;
  run->times[0]          = 0;
  MbsOptionsBegin(comm, NULL, "mbsid perturb: gains of a black-box controller by perturbation", "perturb");
  PetscCall(MbsOptionsOutputFile(PetscOptionsObject, "-o", "Result file (HDF5)", output, sizeof(output)));
  PetscCall(PetscOptionsEnum("-perturb_plant", "The loop: the model (its output to its force), or a prescribed motion", "", MbsPlantTypes, (PetscEnum)plant, (PetscEnum *)&plant, NULL));
  PetscCall(MbsOptionsRealArrayExact(PetscOptionsObject, "-prescribed_motion", "Prescribed motion r = A sin(2 pi f t): A [m], f [Hz]", "", 2, motion, NULL));
  PetscCall(PetscOptionsReal("-controller_dt", "Sample period dt_sim of the controllers [s]", "", run->dt_sample, &run->dt_sample, NULL));
  PetscCall(PetscOptionsEnum("-perturb_method", "Estimator (spec section 4)", "", MbsPerturbMethods, (PetscEnum)run->settings.method, (PetscEnum *)&run->settings.method, NULL));
  PetscCall(PetscOptionsReal("-perturb_delta", "delta: dt_1 = delta dt_sim (Eq. 50)", "", delta, &delta, NULL));
  PetscCall(PetscOptionsReal("-perturb_dy", "dy_1, the input step of perturbation 1 (default: numerically dt_1, Eq. 50)", "", dy, &dy, NULL));
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-perturb_j", "Perturbation j of a single-gain estimator (dt_j = j dt_1)", &run->settings.j, PETSC_MIN_INT, PETSC_MAX_INT, NULL));
  PetscCall(MbsOptionsIntRange(PetscOptionsObject, "-perturb_substeps", "Each perturbation step as n equal steps (partitioned perturbation)", &run->settings.substeps, PETSC_MIN_INT, PETSC_MAX_INT, NULL));
  PetscCall(PetscOptionsBool("-perturb_separate", "PID: each perturbation after its own flat step of dt_j (the protocol of separate simulations)", "", run->settings.separate, &run->settings.separate, NULL));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-perturb_times", "Times of the estimates [s], samples of the controllers", "", 1, run->times, &run->ntimes, &times_set));
  PetscCall(MbsOptionsRealArray(PetscOptionsObject, "-print_output_times", "Sample times [s] at which to print the controllers' outputs u (default: none)", "", 0, output_times, &noutput_times, &output_times_set));
  PetscCall(PetscOptionsBool("-perturb_view_system", "PID: print the system (49) of each estimate", "", view_system, &view_system, NULL));
  MbsOptionsEnd();
  if (!times_set) run->ntimes = 1; /* t0 */
  if (!output_times_set) noutput_times = 0;
  if (help) {
    PetscCall(MbsSimulateHelp(model));
    PetscFunctionReturn(0);
  }
  PetscCheck(run->dt_sample > 0 && run->dt_sample <= model->tf - model->t0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-controller_dt must be a positive sample period within the simulated interval [%g, %g] s, got %g", (double)model->t0, (double)model->tf,
             (double)run->dt_sample);
  PetscCheck(delta > 0 && delta < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-perturb_delta must be positive, got %g", (double)delta);
  PetscCheck(run->settings.j >= 1 && run->settings.j <= 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "-perturb_j must be 1, 2 or 3, got %" PetscInt_FMT, run->settings.j);
  PetscCheck(run->settings.substeps >= 1 && run->settings.substeps <= 1000, comm, PETSC_ERR_ARG_OUTOFRANGE, "-perturb_substeps must be in 1..1000, got %" PetscInt_FMT, run->settings.substeps);
  run->settings.dt = delta * run->dt_sample;
  run->settings.dy = dy < 0 ? run->settings.dt : dy;
  PetscCheck(run->settings.dy > 0 && run->settings.dy < PETSC_INFINITY, comm, PETSC_ERR_ARG_OUTOFRANGE, "-perturb_dy must be positive, got %g", (double)run->settings.dy);
  PetscCall(MbsPerturbCheckTimes_Private(model, "-perturb_times", run->dt_sample, run->ntimes, run->times));
  PetscCall(MbsPerturbCheckTimes_Private(model, "-print_output_times", run->dt_sample, noutput_times, output_times));
  PetscCall(MbsControllerGetSensor(run->controller, &sensor));
  PetscCheck(!sensor[0] || plant == MBS_PLANT_MODEL, comm, PETSC_ERR_ARG_INCOMP, "-controller_sensor %s: the controller reads a sensor of the model only with -perturb_plant model; a prescribed motion is its own input", sensor);
  if (pass->nloop > 1) {
    const char *force;

    PetscCall(MbsModelGetControlInput(model, pass->input[1], &force));
    PetscCheck(plant == MBS_PLANT_MODEL, comm, PETSC_ERR_ARG_INCOMP, "-%s_controller: a further controller runs only in the loop of the model (-perturb_plant model), not on a prescribed motion", force);
  }
  for (PetscInt p = 0; p < 2; p++) /* every loop of both passes samples and perturbs as the first loop's options say */
    for (PetscInt l = 0; l < pass->nloop; l++) {
      MbsPerturbRun *r = pc->pass[p].run[l];
      MbsController  c = pass->run[l]->controller;

      if (r == run) continue;
      *r            = *run;
      r->controller = c;
    }
  for (PetscInt l = 0; l < pass->nloop; l++) {
    pass->run[l]->input      = pass->input[l];
    reference->run[l]->input = pass->input[l];
  }
  PetscCall(MbsOptionsCheckUnused(comm, PETSC_FALSE));

  for (PetscInt l = 0; l < pass->nloop; l++) PetscCall(MbsControllerView(pass->run[l]->controller, PETSC_VIEWER_STDOUT_(comm)));
  if (plant == MBS_PLANT_MODEL) {
    PetscCall(PetscPrintf(comm, "Plant: model %s in the loop of %" PetscInt_FMT " controller%s, sampled every %g s on [%g, %g] s:\n", model->type, pass->nloop, pass->nloop > 1 ? "s" : "", (double)run->dt_sample, (double)model->t0, (double)model->tf));
    for (PetscInt l = 0; l < pass->nloop; l++) PetscCall(MbsModelSetControlLoop(model, pass->input[l], pass->run[l]->controller, PETSC_VIEWER_STDOUT_(comm)));
  } else PetscCall(PetscPrintf(comm, "Plant: prescribed motion r = %g sin(2 pi %g t), sampled every %g s on [%g, %g] s\n", (double)motion[0], (double)motion[1], (double)run->dt_sample, (double)model->t0, (double)model->tf));
  PetscCall(MbsPerturbPass_Private(model, plant, motion, pass, PETSC_TRUE));
  PetscCall(MbsPerturbPass_Private(model, plant, motion, reference, PETSC_FALSE));
  for (PetscInt l = 0; l < pass->nloop; l++) {
    const char *force;

    PetscCall(MbsPerturbCheckRun_Private(comm, pass->run[l], reference->run[l]));
    PetscCall(MbsModelGetControlInput(model, pass->input[l], &force));
    if (pass->nloop > 1) PetscCall(PetscPrintf(comm, "Controller %s on force %s:\n", pass->run[l]->controller->symbol, force));
    PetscCall(MbsPerturbView_Private(comm, pass->run[l], view_system));
    for (PetscInt i = 0; i < noutput_times; i++) {
      PetscInt n = (PetscInt)round((output_times[i] - model->t0) / run->dt_sample);

      PetscCall(PetscPrintf(comm, "u%s%s(%g s) = %.17e N\n", l ? "_" : "", l ? force : "", (double)output_times[i], (double)pass->run[l]->u[n]));
    }
  }
  PetscCall(PetscPrintf(comm, "The run with %" PetscInt_FMT " perturbations and the run without agree bit for bit (%" PetscInt_FMT " samples of u and y)\n", run->nresult, run->nsample));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) PetscCall(MbsPerturbWrite_Private(comm, output, model, pass, reference, plant));
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscPrintf(comm, "Wrote %s\n", output));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCommandPerturb(MPI_Comm comm)
{
  MbsPerturbCommand pc;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&pc, sizeof(pc)));
  MbsCallCleanup(MbsPerturbRun_Private(comm, &pc), MbsPerturbCommandDestroy_Private(&pc));
  PetscFunctionReturn(0);
}
