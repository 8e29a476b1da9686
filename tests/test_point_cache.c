static const char help[] = "Checks that a described model's cached dF/dp follows the input and the controller's force at one point, and the parameters after an accelerometer's dy/dp kept it.\n";

/*
  A described model keeps the sparse dF/dp and the state part of its residual of its last point (t, U, p, U'). A force with input: true whose point is a
  parameter p_j has the column -(dP/dp_j)^T e (F(t) - u) in it: the input F(t) (a nodal input, design's sine) and the
  force u of a controller in the loop change it at the same point. Each change here is followed by dF/dp at the same
  (t, U, p, U') against central differences of the residual (which evaluates the input and u at every call) by p_j:
  the residual is linear in p_j here (the point moves the lever arm only), so the differences are exact to rounding.
  A stale dF/dp keeps the column of the input before, off by the change of F(t) - u times the lever's derivative.

  An accelerometer's dy/dp (checked against central differences of y by every parameter) assembles dF/dp at (t, U, p)
  and U' = (0, a) once for itself and for the dF/dp asked for next at (t, U, p), any U' (DescribedChannels(): py's
  columns of the pushed point and of the strut's stiffness ks and free length L0, each of which moves with the other, do
  not read U'); the model keeps its last two points. After it, dF/dp at another U', at other parameters,
  with an input that came or went and with a controller's new force, and at each of two points, against the
  differences: a kept dF/dp that missed a change fails there.
*/
#include "mbstest.h"

/* |dF/dp (sparse, the model's columns of the parameters id[0..ncol)) - central differences of F by each| and the
   columns' largest entry, the parameters restored bit for bit (a dF/dp the model keeps stays at its point) */
static PetscErrorCode CheckColumns(MbsTest *test, MbsModel model, Mat Jp, PetscInt ncol, const PetscInt id[], PetscReal t, const PetscReal u[], const PetscReal udot[], const char what[])
{
  PetscInt   n, np;
  PetscReal *p, *moved, *fp, *fm, err = 0, scale = 0, h = 1e-3;
  char       label[128];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, &n, NULL, &np));
  PetscCall(PetscMalloc4(np, &p, np, &moved, n, &fp, n, &fm));
  PetscCall(MbsModelJacobianPMat(model, t, u, udot, Jp));
  PetscCall(MbsModelGetParameters(model, p));
  for (PetscInt k = 0; k < ncol; k++) {
    PetscCall(PetscArraycpy(moved, p, np));
    moved[id[k]] = p[id[k]] + h;
    PetscCall(MbsModelSetParameters(model, moved));
    PetscCall(MbsModelResidual(model, t, u, udot, fp));
    moved[id[k]] = p[id[k]] - h;
    PetscCall(MbsModelSetParameters(model, moved));
    PetscCall(MbsModelResidual(model, t, u, udot, fm));
    for (PetscInt i = 0; i < n; i++) {
      PetscScalar value;

      PetscCall(MatGetValue(Jp, i, k, &value));
      err   = PetscMax(err, PetscAbsReal(value - (fp[i] - fm[i]) / (2 * h)));
      scale = PetscMax(scale, PetscAbsReal(fp[i] - fm[i]) / (2 * h));
    }
  }
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(PetscSNPrintf(label, sizeof(label), "|dF/dp - differences| after %s", what));
  PetscCall(MbsTestClose(test, label, err, 0, 0, 1e-9 * scale));
  PetscCall(PetscFree4(p, moved, fp, fm));
  PetscFunctionReturn(0);
}

/* dy_c/dp of channel c at (t, U) against central differences of y_c by every parameter, the parameters restored bit for
   bit (so that the dF/dp the accelerometer keeps is at the model's point) */
static PetscErrorCode CheckChannelP(MbsTest *test, MbsModel model, PetscInt c, PetscReal t, const PetscReal u[], const char what[])
{
  PetscInt   np;
  PetscReal *p, *dydp, *moved, yp, ym, err = 0, scale = 0, h = 1e-3;
  char       label[128];

  PetscFunctionBeginUser;
  PetscCall(MbsModelGetSizes(model, NULL, NULL, &np));
  PetscCall(PetscMalloc3(np, &p, np, &dydp, np, &moved));
  PetscCall(MbsModelChannelOutputP(model, c, t, u, dydp));
  PetscCall(MbsModelGetParameters(model, p));
  for (PetscInt j = 0; j < np; j++) {
    PetscCall(PetscArraycpy(moved, p, np));
    moved[j] = p[j] + h;
    PetscCall(MbsModelSetParameters(model, moved));
    PetscCall(MbsModelChannelOutput(model, c, t, u, &yp, NULL));
    moved[j] = p[j] - h;
    PetscCall(MbsModelSetParameters(model, moved));
    PetscCall(MbsModelChannelOutput(model, c, t, u, &ym, NULL));
    err   = PetscMax(err, PetscAbsReal(dydp[j] - (yp - ym) / (2 * h)));
    scale = PetscMax(scale, PetscAbsReal(yp - ym) / (2 * h));
  }
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(PetscSNPrintf(label, sizeof(label), "|dy/dp - differences| %s", what));
  PetscCall(MbsTestClose(test, label, err, 0, 0, 1e-9 * scale));
  PetscCall(PetscFree3(p, dydp, moved));
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
  MbsModel    model, fresh;
  Mat         Jp, Jp2; /* one matrix for all: its dF/dp is kept from one call to the next; Jp2 with the strut's */
  MbsTest     test = {0, 0};
  PetscInt    n, np, j, c = 1, id[3];
  PetscReal   t0, tf, t, t2, *u, *udot, *f, *u2, *udot2, *p, *p2, tn[2], Fn[2];
  const char *name;

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
  PetscCall(CheckColumns(&test, model, Jp, 1, &j, t, u, udot, "a nodal input of 1 N"));
  Fn[0] = Fn[1] = 3;
  PetscCall(MbsModelSetNodalInput(model, 2, tn, Fn));
  PetscCall(CheckColumns(&test, model, Jp, 1, &j, t, u, udot, "a nodal input of 3 N"));
  PetscCall(MbsModelSetSineInput(model, 2));
  PetscCall(CheckColumns(&test, model, Jp, 1, &j, t, u, udot, "a sine of 2 N"));
  PetscCall(MbsModelSetSineInput(model, 5));
  PetscCall(CheckColumns(&test, model, Jp, 1, &j, t, u, udot, "a sine of 5 N"));
  PetscCall(MbsModelClearInput(model));
  PetscCall(CheckColumns(&test, model, Jp, 1, &j, t, u, udot, "clearing the input"));
  PetscCall(MbsModelSetControlForce(model, 0, 0.5));
  PetscCall(CheckColumns(&test, model, Jp, 1, &j, t, u, udot, "a controller's force of 0.5 N"));
  PetscCall(MbsModelSetControlForce(model, 0, -2));
  PetscCall(CheckColumns(&test, model, Jp, 1, &j, t, u, udot, "a controller's force of -2 N"));
  PetscCall(MbsModelSetControlForce(model, 0, 0));

  /* the residual at one point with a controller's force held at 0, then at 0.7 N (a new sample at the same (t, U)) */
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, &fresh));
  PetscCall(MbsModelSetFromOptions(fresh));
  PetscCall(MbsModelResidual(model, t, u, udot, f));
  PetscCall(MbsModelSetControlForce(model, 0, 0.7));
  PetscCall(MbsModelSetControlForce(fresh, 0, 0.7));
  PetscCall(CheckResidual(&test, model, fresh, t, u, udot, "a controller's new force"));
  PetscCall(MbsModelDestroy(&fresh));
  PetscCall(MbsModelSetControlForce(model, 0, 0));

  /* dF/dp kept by the accelerometer's dy/dp, at another U' and after each change of what it reads */
  PetscCall(MbsModelGetChannelInfo(model, c, &name, NULL));
  PetscCheck(!strcmp(name, "a"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Channel %" PetscInt_FMT " is %s, not the accelerometer a", c, name);
  PetscCall(MbsModelGetSizes(model, NULL, NULL, &np));
  PetscCall(MbsModelGetParameterIndex(model, "py", &id[0]));
  PetscCall(MbsModelGetParameterIndex(model, "ks", &id[1]));
  PetscCall(MbsModelGetParameterIndex(model, "L0", &id[2]));
  PetscCall(MbsModelJacobianPCreate(model, 3, id, &Jp2));
  PetscCall(PetscMalloc4(n, &u2, n, &udot2, np, &p, np, &p2));
  PetscCall(MbsModelInitialState(model, t0, u, udot2)); /* the block turned by an orthonormal frame: a state whose accelerations are of its forces' size */
  PetscCall(PetscArraycpy(u2, u, n));
  for (PetscInt i = 0; i < 3; i++) {
    u[i]       = 0.01 * (i + 1);
    u[12 + i]  = 0.1 * (i + 1);
    u2[i]      = -0.02 * (i + 1);
    u2[12 + i] = -0.05 * (i + 1);
  }
  for (PetscInt i = 0; i < n; i++) udot2[i] = 0.5 - 0.1 * i;
  t2    = t0 + 0.7 * (tf - t0);
  Fn[0] = 1;
  PetscCall(MbsModelSetNodalInput(model, 2, tn, Fn)); /* 1 N at t0 to 3 N at tf: py's column, not zero, moves with t */
  PetscCall(MbsModelGetParameters(model, p));
  PetscCall(CheckChannelP(&test, model, c, t, u, "of the accelerometer"));
  PetscCall(CheckColumns(&test, model, Jp2, 3, id, t, u, udot2, "the accelerometer's dy/dp at U' = (0, a)"));
  PetscCall(CheckChannelP(&test, model, c, t, u, "before new parameters"));
  for (PetscInt k = 0; k < np; k++) p2[k] = 1.5 * p[k] + 0.25;
  PetscCall(MbsModelSetParameters(model, p2));
  PetscCall(CheckColumns(&test, model, Jp2, 3, id, t, u, udot2, "the accelerometer's dy/dp, new parameters"));
  PetscCall(MbsModelSetParameters(model, p));
  PetscCall(CheckChannelP(&test, model, c, t, u, "before a sine"));
  PetscCall(MbsModelSetSineInput(model, 2));
  PetscCall(CheckColumns(&test, model, Jp2, 3, id, t, u, udot2, "the accelerometer's dy/dp, a sine of 2 N"));
  PetscCall(CheckChannelP(&test, model, c, t, u, "with a sine of 2 N"));
  PetscCall(MbsModelClearInput(model));
  PetscCall(MbsModelSetControlForce(model, 0, 0.5));
  PetscCall(CheckColumns(&test, model, Jp2, 3, id, t, u, udot2, "the accelerometer's dy/dp, the sine cleared"));
  PetscCall(CheckChannelP(&test, model, c, t, u, "before a controller's new force"));
  PetscCall(MbsModelSetControlForce(model, 0, -2));
  PetscCall(CheckColumns(&test, model, Jp2, 3, id, t, u, udot2, "the accelerometer's dy/dp, a controller's new force"));
  PetscCall(CheckChannelP(&test, model, c, t, u, "at the first of two points"));
  PetscCall(CheckChannelP(&test, model, c, t2, u2, "at the second of two points"));
  PetscCall(CheckColumns(&test, model, Jp2, 3, id, t, u, udot2, "the accelerometer's dy/dp at two points, the first"));
  PetscCall(CheckColumns(&test, model, Jp2, 3, id, t2, u2, udot, "the accelerometer's dy/dp at two points, the second"));
  PetscCall(PetscFree4(u2, udot2, p, p2));
  PetscCall(MatDestroy(&Jp2));
  PetscCall(PetscFree3(u, udot, f));
  PetscCall(MatDestroy(&Jp));
  PetscCall(MbsModelDestroy(&model));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
