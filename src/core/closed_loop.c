/*
  Simulation with sampled controllers in the loop: at the samples t_n = t0 + n dt_s each loop's sensor y(t_n) (the
  model's output, or the channel of MbsModelSetControlSensor()) goes to a sampler (its controller), whose force u_n is
  held on [t_n, t_{n+1}) (zero-order hold; the loop's force input becomes F(t) - u_n). All loops share the samples and
  read the same state, so their order does not matter. The integrator's steps must land on the samples, so the method
  runs on fixed steps that divide dt_s; each sample restarts the step, so that no stage value of the old force is
  reused (FSAL Runge-Kutta pairs).
  The samples are placed by counting steps, m of them per sample, and the integrator's time is set to t_n there:
  a sum of 10^5 floating steps of 0.01 s is off by more than 1e-9 dt_s (91.72 s, sample 9172), which a comparison
  of times would take for a step that passed the sample.
*/
#include "core/coreimpl.h"

typedef struct {
  MbsModel        model;
  PetscReal       dt_sample;
  PetscInt        next;             /* index of the next sample */
  PetscInt        steps_per_sample; /* m, 0 until the first step gives the step size */
  PetscInt        steps;            /* steps since the last sample */
  PetscInt        nloop;
  const PetscInt *input; /* the force input of each loop */
  MbsSampleFn     sampler;
  void           *ctx;
} MbsClosedLoop;

static PetscErrorCode MbsClosedLoopSample_Private(MbsClosedLoop *loop, PetscReal t, const PetscReal u[])
{
  PetscReal y[MBS_MAX_CONTROL], force;

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < loop->nloop; l++) PetscCall(MbsModelControlSensor(loop->model, loop->input[l], t, u, &y[l]));
  for (PetscInt l = 0; l < loop->nloop; l++) {
    PetscCall(loop->sampler(loop->model, l, loop->next, loop->model->t0 + loop->next * loop->dt_sample, y[l], &force, loop->ctx));
    PetscCall(MbsModelSetControlForce(loop->model, loop->input[l], force));
  }
  loop->next++;
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsClosedLoopPostStep(TS ts)
{
  MbsClosedLoop     *loop;
  PetscReal          t, t_next;
  Vec                U;
  const PetscScalar *u;

  PetscFunctionBeginUser;
  PetscCall(TSGetApplicationContext(ts, &loop));
  PetscCall(TSGetTime(ts, &t));
  t_next = loop->model->t0 + loop->next * loop->dt_sample;
  if (!loop->steps_per_sample) {
    PetscReal dt, m;

    PetscCall(TSGetTimeStep(ts, &dt));
    m = PetscFloorReal(loop->dt_sample / dt + 0.5);
    PetscCheck(m >= 1 && PetscAbsReal(m * dt - loop->dt_sample) <= 1e-9 * loop->dt_sample, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The time step %g s does not divide the controller's sample period %g s: with a controller in the loop, -ts_dt must divide -controller_dt and -ts_adapt_type must be none", (double)dt,
               (double)loop->dt_sample);
    loop->steps_per_sample = (PetscInt)m;
  }
  if (++loop->steps < loop->steps_per_sample && t < t_next - 1e-9 * loop->dt_sample) PetscFunctionReturn(0);
  PetscCheck(loop->steps == loop->steps_per_sample && PetscAbsReal(t - t_next) <= 1e-6 * loop->dt_sample, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "The time steps missed the controller's sample at t = %.9g s (%" PetscInt_FMT " steps reached %.9g s): with a controller in the loop, -ts_adapt_type must be none and -ts_dt must divide -controller_dt", (double)t_next,
             loop->steps, (double)t);
  loop->steps = 0;
  PetscCall(TSSetTime(ts, t_next));
  PetscCall(TSGetSolution(ts, &U));
  PetscCall(VecGetArrayRead(U, &u));
  PetscCall(MbsClosedLoopSample_Private(loop, t_next, u));
  PetscCall(VecRestoreArrayRead(U, &u));
  PetscCall(TSRestartStep(ts));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsClosedLoopSetUp(TS ts, void *ctx)
{
  MbsClosedLoop *loop = (MbsClosedLoop *)ctx;
  TSAdapt        adapt;
  PetscReal      steps = PetscCeilReal(loop->dt_sample / loop->model->dt - 1e-9);

  PetscFunctionBeginUser;
  PetscCall(TSSetTimeStep(ts, loop->dt_sample / steps));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
  PetscCall(TSSetApplicationContext(ts, loop));
  PetscCall(TSSetPostStep(ts, MbsClosedLoopPostStep));
  PetscFunctionReturn(0);
}

/* The first sample: the initial state's output, in the work arrays u, udot */
static PetscErrorCode MbsClosedLoopStart_Private(MbsClosedLoop *loop, PetscReal u[], PetscReal udot[])
{
  PetscFunctionBeginUser;
  PetscCall(MbsModelInitialState(loop->model, loop->model->t0, u, udot));
  PetscCall(MbsClosedLoopSample_Private(loop, loop->model->t0, u));
  PetscFunctionReturn(0);
}

/* No force left from an earlier run, nor after this one */
static PetscErrorCode MbsClosedLoopZeroForces_Private(MbsModel model, PetscInt nloop, const PetscInt input[])
{
  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < nloop; l++) PetscCall(MbsModelSetControlForce(model, input[l], 0));
  PetscFunctionReturn(0);
}

/*@C
  MbsSimulateClosedLoop - Simulates the model with nloop loops closed every dt_sample seconds from t0 on, loop l by
  sampler(model, l, ...) on force input input[l] (MbsModelGetNumControlInputs(), each at most once); the first sample
  is the initial state's. Not collective.
@*/
PetscErrorCode MbsSimulateClosedLoop(MbsModel model, const char prefix[], PetscReal dt_sample, PetscInt nloop, const PetscInt input[], MbsSampleFn sampler, void *ctx, MbsSignal *signal)
{
  MbsClosedLoop loop = {model, dt_sample, 0, 0, 0, nloop, input, sampler, ctx};
  PetscReal    *u, *udot;

  PetscFunctionBeginUser;
  PetscCall(MbsModelCheckLoops_Private(model, nloop, input));
  PetscCheck(dt_sample > 0 && dt_sample <= model->tf - model->t0, model->comm, PETSC_ERR_ARG_OUTOFRANGE, "The controller's sample period %g s must be positive and within the simulated interval [%g, %g] s (-controller_dt)", (double)dt_sample,
             (double)model->t0, (double)model->tf);
  PetscCall(MbsClosedLoopZeroForces_Private(model, nloop, input));
  PetscCall(PetscMalloc2(model->n, &u, model->n, &udot));
  MbsCallCleanup(MbsClosedLoopStart_Private(&loop, u, udot), PetscFree2(u, udot));
  PetscCall(MbsSimulate_Private(model, prefix, MbsClosedLoopSetUp, &loop, NULL, NULL, signal, NULL));
  PetscCall(MbsClosedLoopZeroForces_Private(model, nloop, input));
  PetscFunctionReturn(0);
}
