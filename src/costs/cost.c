/*
  The cost registry: a cost compares the simulated output of one experiment with a measurement. Each
  type is one file and one MbsCostRegister line:

    spectrum  J = 1/4 sum_k (A_k^2 + B_k^2 - |X_k|^2)^2 over a band or engine orders (cost_spectrum.c)
    time      J = sum_i w_i (y(t_i) - y_i)^2 over the measured samples, w_i their trapezoid weights (cost_time.c)
*/
#include "costs/costimpl.h"

static PetscFunctionList MbsCostList              = NULL;
static PetscBool         MbsCostRegisterAllCalled = PETSC_FALSE;

PetscErrorCode MbsCostRegister(const char name[], PetscErrorCode (*create)(MbsCost))
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListAdd(&MbsCostList, name, create));
  PetscFunctionReturn(0);
}

/* Frees the registry at PetscFinalize() */
static PetscErrorCode MbsCostFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&MbsCostList));
  MbsCostRegisterAllCalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@C
  MbsCostRegisterAll - Registers the costs "spectrum" and "time". Not collective.
@*/
PetscErrorCode MbsCostRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (MbsCostRegisterAllCalled) PetscFunctionReturn(0);
  MbsCostRegisterAllCalled = PETSC_TRUE;
  PetscCall(PetscRegisterFinalize(MbsCostFinalizePackage));
  PetscCall(MbsCostRegister("spectrum", MbsCostCreate_Spectrum));
  PetscCall(MbsCostRegister("time", MbsCostCreate_Time));
  PetscFunctionReturn(0);
}

/*@C
  MbsCostCreate - Creates a cost for the output of the model; its type is chosen by MbsCostSetFromOptions(). Not collective.
@*/
PetscErrorCode MbsCostCreate(MbsModel model, MbsCost *cost)
{
  PetscFunctionBeginUser;
  PetscCall(MbsCostRegisterAll());
  PetscCall(PetscNew(cost));
  (*cost)->model = model;
  PetscFunctionReturn(0);
}

/*@C
  MbsCostSetFromOptions - Reads -cost and the options of that cost. Collective on the model's communicator.
@*/
PetscErrorCode MbsCostSetFromOptions(MbsCost cost)
{
  char type[32]                     = "spectrum";
  PetscErrorCode (*create)(MbsCost) = NULL;

  PetscFunctionBeginUser;
  MbsOptionsBegin(cost->model->comm, NULL, "Cost", "MbsCost");
  PetscCall(PetscOptionsFList("-cost", "Cost compared with the measurement", "MbsCostSetFromOptions", MbsCostList, type, type, sizeof(type), NULL));
  MbsOptionsEnd();
  PetscCall(PetscFunctionListFind(MbsCostList, type, &create));
  if (!create) {
    char known[256];

    PetscCall(MbsFunctionListNames(MbsCostList, known, sizeof(known)));
    SETERRQ(cost->model->comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown cost '%s' (-cost); known costs: %s", type, known);
  }
  PetscCall(PetscStrncpy(cost->type, type, sizeof(cost->type)));
  PetscCall(create(cost));
  if (cost->ops.set_from_options) PetscCall(cost->ops.set_from_options(cost));
  PetscFunctionReturn(0);
}

/*@C
  MbsCostSetUp - Takes the measured data the cost compares with from the measurement (path names the file in
  messages); the measurement must outlive the cost. Collective on the model's communicator.
@*/
PetscErrorCode MbsCostSetUp(MbsCost cost, const char path[], const MbsMeasurement *meas)
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(cost->measurement, path, sizeof(cost->measurement)));
  PetscCall(cost->ops.set_up(cost, path, meas));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostGetType(MbsCost cost, const char **type)
{
  PetscFunctionBeginUser;
  *type = cost->type;
  PetscFunctionReturn(0);
}

/*@C
  MbsCostEvaluate - The discrete cost J of a simulated signal; afterwards MbsCostDensity() gives its adjoint density. Not collective.
@*/
PetscErrorCode MbsCostEvaluate(MbsCost cost, const MbsSignal *signal, PetscReal *J)
{
  PetscFunctionBeginUser;
  PetscCall(cost->ops.evaluate(cost, signal, J));
  /* the simulated output is finite here (a failed solve does not get this far): the measurement overflows the cost */
  PetscCheck(!PetscIsInfOrNanReal(*J), PETSC_COMM_SELF, PETSC_ERR_FP, "Cost %s of model %s against measurement file '%s' is %g: the measured values overflow it (amplitudes of 1e154 and more square to infinity); check the file's values and units",
             cost->type, cost->model->type, cost->measurement, (double)*J);
  PetscFunctionReturn(0);
}

/*@C
  MbsCostSignalUsable - Whether MbsCostEvaluate() can use a signal whose integration succeeded: not where an adaptive
  step in a spectrum's window is too long for one of its frequencies (an alias), which depends on the parameters and
  counts as a failed solve there; the cost keeps the reason for the message of a command that stops on it. Not
  collective.
@*/
PetscErrorCode MbsCostSignalUsable(MbsCost cost, const MbsSignal *signal, PetscBool *usable)
{
  PetscFunctionBeginUser;
  cost->unusable[0] = 0;
  if (cost->ops.usable) PetscCall(cost->ops.usable(cost, signal, cost->unusable, sizeof(cost->unusable)));
  *usable = (PetscBool)!cost->unusable[0];
  if (!*usable) PetscCall(PetscInfo(NULL, "%s\n", cost->unusable));
  PetscFunctionReturn(0);
}

/*@C
  MbsCostDensity - r'(t, y) with dJ/dy_n = c_n r'(t_n, y_n) for the signal of the last MbsCostEvaluate(); 0 for a
  cost on step points (MbsCostStepPoint()). Not collective.
@*/
PetscErrorCode MbsCostDensity(MbsCost cost, PetscReal t, PetscReal y, PetscReal *drdy)
{
  PetscFunctionBeginUser;
  *drdy = 0;
  if (cost->ops.density) PetscCall(cost->ops.density(cost, t, y, drdy));
  PetscFunctionReturn(0);
}

/*
  MbsCostStepPoint - dJ/dy_n at step point n (time t_n) of the signal of the last MbsCostEvaluate(), beyond what the
  density gives; 0 for an integral cost. Not collective.
*/
PetscErrorCode MbsCostStepPoint(MbsCost cost, PetscInt n, PetscReal t, PetscReal *dJdy)
{
  PetscFunctionBeginUser;
  *dJdy = 0;
  if (cost->ops.step_point) PetscCall(cost->ops.step_point(cost, n, t, dJdy));
  PetscFunctionReturn(0);
}

/*@C
  MbsCostRecord - Keeps the model's curve of a signal (0: initial, 1: identified) for the result file. Not collective.
@*/
PetscErrorCode MbsCostRecord(MbsCost cost, const MbsSignal *signal, PetscInt slot)
{
  PetscFunctionBeginUser;
  PetscCheck(slot >= 0 && slot < MBS_COST_SLOTS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Cost record slot %" PetscInt_FMT " out of range [0, %d)", slot, MBS_COST_SLOTS);
  PetscCall(cost->ops.record(cost, signal, slot));
  PetscFunctionReturn(0);
}

/*
  MbsCostResiduals - J of the last MbsCostEvaluate() as sum_i w_i r_i^2, and the map from the measured values to the
  residuals (costimpl.h). Call with r NULL for the sizes m and ndata, then with arrays of m (w, r) and 2 m (data,
  dr_dd) entries. Not collective.
*/
PetscErrorCode MbsCostResiduals(MbsCost cost, const MbsSignal *signal, PetscInt *m, PetscInt *ndata, PetscReal r[], PetscReal w[], PetscInt data[], PetscReal dr_dd[])
{
  PetscFunctionBeginUser;
  PetscCheck(cost->ops.residuals, PETSC_COMM_SELF, PETSC_ERR_SUP, "Cost %s does not provide its residuals, which the confidence of a result needs: run identify with -confidence false", cost->type);
  PetscCall(cost->ops.residuals(cost, signal, m, ndata, r, w, data, dr_dd));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostWrite(MbsCost cost, MbsH5Writer *writer)
{
  PetscFunctionBeginUser;
  PetscCall(cost->ops.write(cost, writer));
  PetscFunctionReturn(0);
}

PetscErrorCode MbsCostDestroy(MbsCost *cost)
{
  PetscFunctionBeginUser;
  if (!*cost) PetscFunctionReturn(0);
  if ((*cost)->ops.destroy) PetscCall((*cost)->ops.destroy(*cost));
  PetscCall(PetscFree(*cost));
  PetscFunctionReturn(0);
}
