static const char help[] = "Checks that a described model's cached dF/dp follows the input and the controller's force at one point.\n";

/*
  A described model keeps the sparse dF/dp and the state part of its residual of its last point (t, U, p, U'). A force with input: true whose point is a
  parameter p_j has the column -(dP/dp_j)^T e (F(t) - u) in it: the input F(t) (a nodal input, design's sine) and the
  force u of a controller in the loop change it at the same point. Each change here is followed by dF/dp at the same
  (t, U, p, U') against central differences of the residual (which evaluates the input and u at every call) by p_j:
  the residual is linear in p_j here (the point moves the lever arm only), so the differences are exact to rounding.
  A stale dF/dp keeps the column of the input before, off by the change of F(t) - u times the lever's derivative.
*/
#include "mbstest.h"

/* |dF/dp_j (sparse, column j of the model's) - central differences of F by p_j| and the column's largest entry */
static PetscErrorCode CheckColumn(MbsTest *test, MbsModel model, Mat Jp, PetscInt j, PetscReal t, const PetscReal u[], const PetscReal udot[], const char what[])
{
  PetscInt   n, np;
  PetscReal *p, *fp, *fm, err = 0, scale = 0, h = 1e-3;
  char       label[128];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(PetscMalloc3(np, &p, n, &fp, n, &fm));
  PetscCall(MbsModelJacobianPMat(model, t, u, udot, Jp));
  PetscCall(MbsModelGetParameters(model, p));
  p[j] += h;
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(MbsModelResidual(model, t, u, udot, fp));
  p[j] -= 2 * h;
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(MbsModelResidual(model, t, u, udot, fm));
  p[j] += h;
  PetscCall(MbsModelSetParameters(model, p));
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar value;

    PetscCall(MatGetValue(Jp, i, 0, &value));
    err   = PetscMax(err, PetscAbsReal(value - (fp[i] - fm[i]) / (2 * h)));
    scale = PetscMax(scale, PetscAbsReal(fp[i] - fm[i]) / (2 * h));
  }
  PetscCall(PetscSNPrintf(label, sizeof(label), "|dF/dp_j - differences| after %s", what));
  PetscCall(MbsTestClose(test, label, err, 0, 0, 1e-9 * scale));
  PetscCall(PetscFree3(p, fp, fm));
  PetscFunctionReturn(0);
}

/* F(t, U, U') of model, which has just evaluated F at (t, U, p) with another force, against fresh's (which never
   evaluated it): equal bit for bit, as the residual's part kept at the point leaves the forces with input: true out */
static PetscErrorCode CheckResidual(MbsTest *test, MbsModel model, MbsModel fresh, PetscReal t, const PetscReal u[], const PetscReal udot[], const char what[])
{
  PetscInt   n;
  PetscReal *f, *g, err = 0;
  char       label[128];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, NULL));
  PetscCall(PetscMalloc2(n, &f, n, &g));
  PetscCall(MbsModelResidual(model, t, u, udot, f));
  PetscCall(MbsModelResidual(fresh, t, u, udot, g));
  for (PetscInt i = 0; i < n; i++) err = PetscMax(err, PetscAbsReal(f[i] - g[i]));
  PetscCall(PetscSNPrintf(label, sizeof(label), "|F - F of a fresh model| after %s", what));
  PetscCall(MbsTestClose(test, label, err, 0, 0, 0));
  PetscCall(PetscFree2(f, g));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsModel  model, fresh;
  Mat       Jp; /* one matrix for all: its dF/dp is kept from one call to the next */
  MbsTest   test = {0, 0};
  PetscInt  n, j;
  PetscReal t0, tf, t, *u, *udot, *f, tn[2], Fn[2];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &model));
  PetscCall(MbsModelSetFromOptions(model));
  PetscCall(MbsModelGetSizes(model, &n, NULL, NULL));
  PetscCall(MbsModelGetParameterIndex(model, "py", &j));
  PetscCall(MbsModelGetTimeSpan(model, &t0, &tf, NULL));
  PetscCall(MbsModelJacobianPCreate(model, 1, &j, &Jp));
  t = t0 + 0.3 * (tf - t0); /* where the sine does not vanish */
  PetscCall(PetscCalloc3(n, &u, n, &udot, n, &f));
  for (PetscInt i = 0; i < n; i++) u[i] = 0.01 * (i + 1); /* the block displaced, turned and moving */
  tn[0] = t0;
  tn[1] = tf;

  Fn[0] = Fn[1] = 1;
  PetscCall(MbsModelSetNodalInput(model, 2, tn, Fn));
  PetscCall(CheckColumn(&test, model, Jp, j, t, u, udot, "a nodal input of 1 N"));
  Fn[0] = Fn[1] = 3;
  PetscCall(MbsModelSetNodalInput(model, 2, tn, Fn));
  PetscCall(CheckColumn(&test, model, Jp, j, t, u, udot, "a nodal input of 3 N"));
  PetscCall(MbsModelSetSineInput(model, 2));
  PetscCall(CheckColumn(&test, model, Jp, j, t, u, udot, "a sine of 2 N"));
  PetscCall(MbsModelSetSineInput(model, 5));
  PetscCall(CheckColumn(&test, model, Jp, j, t, u, udot, "a sine of 5 N"));
  PetscCall(MbsModelClearInput(model));
  PetscCall(CheckColumn(&test, model, Jp, j, t, u, udot, "clearing the input"));
  PetscCall(MbsModelSetControlForce(model, 0, 0.5));
  PetscCall(CheckColumn(&test, model, Jp, j, t, u, udot, "a controller's force of 0.5 N"));
  PetscCall(MbsModelSetControlForce(model, 0, -2));
  PetscCall(CheckColumn(&test, model, Jp, j, t, u, udot, "a controller's force of -2 N"));
  PetscCall(MbsModelSetControlForce(model, 0, 0));

  /* the residual at one point with a controller's force held at 0, then at 0.7 N (a new sample at the same (t, U)) */
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &fresh));
  PetscCall(MbsModelSetFromOptions(fresh));
  PetscCall(MbsModelResidual(model, t, u, udot, f));
  PetscCall(MbsModelSetControlForce(model, 0, 0.7));
  PetscCall(MbsModelSetControlForce(fresh, 0, 0.7));
  PetscCall(CheckResidual(&test, model, fresh, t, u, udot, "a controller's new force"));
  PetscCall(MbsModelDestroy(&fresh));
  PetscCall(PetscFree3(u, udot, f));
  PetscCall(MatDestroy(&Jp));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
