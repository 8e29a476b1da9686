static const char help[] = "Counts the work of one adjoint gradient of a Runge-Kutta solve against that of J alone (no timing).\n"
                           "Options: those of mbsid gradcheck (-options_file, -measurement, -identify, -ts_*).\n";

/*
  A gradient by one forward and one adjoint solve costs about two forward solves. For an explicit Runge-Kutta method
  of s stages on N accepted steps that is, counted from PETSc's log in two stages (J alone; J with its gradient), with
  s_a the stages whose adjoint is not zero (b_i != 0, or a later stage reads them: 6 of tsit5's 7, its FSAL last
  stage feeds nothing):

    right-hand sides g (TSFunctionEval)        the gradient's = J's       (the forward solve; none in the sweep)
    adjoint steps (TSAdjointStep)              N
    products with dg/dU, dg/dp (MbsRateAdjoint) s_a N                     (one per stage: the adjoint's only work)
    Jacobians formed (TSJacobianEval, SNESJacobianEval)   0
    PETSc objects created                      the gradient's - J's <= 4 s, whatever N (N > 100 here)

  so that a return of per-stage Jacobians (n + np solves each), of a backward cost integral or of PETSc's memory
  trajectory (s + 1 new vectors per step: -ts_trajectory_type memory fails with 5909 objects on 843 steps) fails. 4 s
  bounds the gradient's own objects (its trajectory, lambda, mu, the dF/dp matrix, PETSc's set-up of the Runge-Kutta
  adjoint: s + 2 vectors; 14 for tsit5 on 2026-11-25); objects are counted by their ids, which count every creation.
*/
#include "mbstest.h"
#include "identification/identificationimpl.h"

static PetscErrorCode EventCount(PetscLogStage stage, const char name[], PetscInt *count)
{
  PetscLogEvent      event;
  PetscEventPerfInfo info;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventGetId(name, &event));
  PetscCall(PetscLogEventGetPerfInfo(stage, event, &info));
  *count = info.count;
  PetscFunctionReturn(0);
}

/* The id of a new PETSc object: ids count every object created (vectors, matrices, solvers) */
static PetscErrorCode NextObjectId(PetscObjectId *id)
{
  Vec probe;

  PetscFunctionBeginUser;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 1, &probe));
  PetscCall(PetscObjectGetId((PetscObject)probe, id));
  PetscCall(VecDestroy(&probe));
  PetscFunctionReturn(0);
}

/* One evaluation in its own log stage, and the PETSc objects it creates */
static PetscErrorCode Evaluate(MbsObjective obj, const PetscReal x[], PetscReal grad[], PetscLogStage *stage, PetscInt *objects)
{
  PetscReal     J;
  PetscBool     ok;
  PetscObjectId before, after;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister(grad ? "J and gradient" : "J", stage));
  PetscCall(NextObjectId(&before));
  PetscCall(PetscLogStagePush(*stage));
  PetscCall(MbsObjectiveEvaluate(obj, x, &J, grad, &ok));
  PetscCall(PetscLogStagePop());
  PetscCall(NextObjectId(&after));
  *objects = (PetscInt)(after - before - 1);
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "The forward solve failed");
  PetscFunctionReturn(0);
}

/* s and the stages whose adjoint is not zero, from the tableau -ts_rk_type names */
static PetscErrorCode AdjointStages(PetscInt *s, PetscInt *s_adjoint)
{
  TS               ts;
  const PetscReal *A, *b;

  PetscFunctionBeginUser;
  PetscCall(TSCreate(PETSC_COMM_SELF, &ts));
  PetscCall(TSSetType(ts, TSRK));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSRKGetTableau(ts, s, &A, &b, NULL, NULL, NULL, NULL, NULL));
  *s_adjoint = 0;
  for (PetscInt i = 0; i < *s; i++) {
    PetscBool read = (PetscBool)(b[i] != 0);

    for (PetscInt j = i + 1; j < *s; j++) read = (PetscBool)(read || A[j * *s + i] != 0);
    *s_adjoint += read;
  }
  PetscCall(TSDestroy(&ts));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckCount(MbsTest *test, const char what[], PetscInt count, PetscInt expected, PetscBool at_most)
{
  PetscFunctionBeginUser;
  test->checks++;
  if (at_most ? count > expected : count != expected) {
    test->failures++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %" PetscInt_FMT ", expected %s%" PetscInt_FMT "\n", what, count, at_most ? "at most " : "", expected));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok   %s: %" PetscInt_FMT "\n", what, count));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsObjective  obj;
  MbsTest       test = {0, 0};
  PetscBool     has_help;
  PetscLogStage value, gradient;
  PetscInt      s = 0, s_adjoint = 0, steps, count[2], objects[2];
  PetscReal    *x, *grad;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscLogDefaultBegin());
  PetscCall(MbsObjectiveCreate(PETSC_COMM_WORLD, &obj, &has_help));
  if (!has_help) {
    PetscCall(PetscMalloc2(obj->nid, &x, obj->nid, &grad));
    PetscCall(MbsObjectiveGetValues(obj, x));
    PetscCall(Evaluate(obj, x, NULL, &value, &objects[0]));
    PetscCall(Evaluate(obj, x, grad, &gradient, &objects[1]));
    PetscCall(AdjointStages(&s, &s_adjoint));

    PetscCall(EventCount(value, "TSStep", &steps));
    PetscCheck(steps > 100, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%" PetscInt_FMT " steps: take a longer -time_span, so that work per step stands out", steps);
    PetscCall(EventCount(value, "TSFunctionEval", &count[0]));
    PetscCall(EventCount(gradient, "TSFunctionEval", &count[1]));
    PetscCall(CheckCount(&test, "right-hand sides of the gradient, as many as of J", count[1], count[0], PETSC_FALSE));
    PetscCall(EventCount(gradient, "TSAdjointStep", &count[1]));
    PetscCall(CheckCount(&test, "adjoint steps, one per step", count[1], steps, PETSC_FALSE));
    PetscCall(EventCount(gradient, "MbsRateAdjoint", &count[1]));
    PetscCall(CheckCount(&test, "products with dg/dU and dg/dp, one per stage with an adjoint", count[1], s_adjoint * steps, PETSC_FALSE));
    PetscCall(EventCount(gradient, "TSJacobianEval", &count[1]));
    PetscCall(CheckCount(&test, "Jacobians of the rate formed", count[1], 0, PETSC_FALSE));
    PetscCall(EventCount(gradient, "SNESJacobianEval", &count[1]));
    PetscCall(CheckCount(&test, "Jacobians formed through SNES", count[1], 0, PETSC_FALSE));
    PetscCall(CheckCount(&test, "PETSc objects the gradient creates beyond J's", objects[1] - objects[0], 4 * s, PETSC_TRUE));
    PetscCall(PetscFree2(x, grad));
    PetscCall(MbsTestFinish(&test));
  }
  PetscCall(MbsObjectiveDestroy(&obj));
  PetscCall(PetscFinalize());
  return 0;
}
