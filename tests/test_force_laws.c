static const char help[] = "Checks the nonlinear force laws of model files (doc/model-files.md, section Nonlinear force laws) against their closed forms.\n";

/*
  Each law is put on a point mass on the x axis (a rail), as a bushing from the ground, a spring_damper from a ground
  point, or as a rotational_spring of a rigid body about z on a hinge; the test writes the model file. At the state
  x, x' (the angle theta, theta') with U' = 0 and lambda = mu = 0 the residual's row of the coordinate is
  M v' - f = g(x, x'), the force the law gives (for the rotational spring the moment about z of the generalised
  forces on u, v, w, by virtual work). It must equal, computed here from the formulas and not from the code:

    polynomial  k1 x + k2 x^2 + k3 x^3, with the damping d0 (1 + c x^2) x' (amplitude) and d0 x' + F tanh(x'/v)
                (friction), for a bushing, on the spring_damper's deflection L - L0, and on the hinge's angle
    table       the table's forces at its points (any values), and a cubic sampled at uneven points: the not-a-knot
                spline is that cubic, inside (1e-10) and, beyond the ends, its tangent lines there
*/
#include "mbstest.h"

#define NPOINT 7

static const PetscReal X[NPOINT] = {-0.04, -0.025, -0.01, 0, 0.008, 0.02, 0.05}; /* uneven table points [m] */

static PetscReal Cubic(PetscReal x, PetscReal *slope)
{
  *slope = 2500 - 2 * 4e4 * x + 3 * 3e7 * x * x;
  return 2500 * x - 4e4 * x * x + 3e7 * x * x * x;
}

/* Writes a model of one law and loads it; n: the size of U */
static PetscErrorCode LoadLaw(const char path[], const char element[], PetscBool rigid, MbsModel *model, PetscInt *n)
{
  FILE    *file;
  PetscInt nq, np;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &file));
  if (rigid) PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "bodies:\n  m: {mass: 2, inertia: [0.1, 0.12, 0.15]}\nelements:\n  hinge: {type: revolute, bodies: [ground, m], point: [0, 0, 0], axis: [0, 0, 1]}\n"));
  else PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "bodies:\n  m: {mass: 2, position: [1, 0, 0]}\nelements:\n  rail: {type: point_on_line, bodies: [ground, m], point: [0, 0, 0], axis: [1, 0, 0]}\n"));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, file, "  law: %s\n  x: {type: position, body: m, axis: [1, 0, 0]}\n", element));
  PetscCall(PetscFClose(PETSC_COMM_SELF, file));
  PetscCall(PetscOptionsSetValue(NULL, "-model_file", path));
  PetscCall(MbsModelCreate(PETSC_COMM_WORLD, model));
  PetscCall(MbsModelSetFromOptions(*model));
  PetscCall(MbsModelGetSizes(*model, n, &nq, &np));
  PetscFunctionReturn(0);
}

/* g(x, x') of the law of a point-mass model: the mass at x0 + x on the x axis moving at x' */
static PetscErrorCode PointForce(MbsModel model, PetscInt n, PetscReal x0, PetscReal x, PetscReal rate, PetscReal *g)
{
  PetscReal *U, *Udot, *F;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc3(n, &U, n, &Udot, n, &F));
  U[0] = x0 + x;
  U[3] = rate;
  PetscCall(MbsModelResidual(model, 0, U, Udot, F));
  *g = F[3];
  PetscCall(PetscFree3(U, Udot, F));
  PetscFunctionReturn(0);
}

/* The torque of a rotational spring's law on the body turned by theta about z at the rate theta' */
static PetscErrorCode HingeTorque(MbsModel model, PetscInt n, PetscReal theta, PetscReal rate, PetscReal *g)
{
  const PetscReal c = PetscCosReal(theta), s = PetscSinReal(theta);
  const PetscReal axes[9] = {c, s, 0, -s, c, 0, 0, 0, 1}, w[3] = {0, 0, rate};
  PetscReal      *U, *Udot, *F;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc3(n, &U, n, &Udot, n, &F));
  for (PetscInt j = 0; j < 3; j++) { /* u, v, w and their rates w x a_j */
    const PetscReal *a = axes + 3 * j;

    for (PetscInt k = 0; k < 3; k++) U[3 + 3 * j + k] = a[k];
    U[12 + 3 + 3 * j + 0] = w[1] * a[2] - w[2] * a[1];
    U[12 + 3 + 3 * j + 1] = w[2] * a[0] - w[0] * a[2];
  }
  PetscCall(MbsModelResidual(model, 0, U, Udot, F));
  *g = 0; /* -M_z = -sum_j (a_j x f_aj)_z, f = -(rows 12..23) */
  for (PetscInt j = 0; j < 3; j++) *g += axes[3 * j] * F[12 + 3 + 3 * j + 1] - axes[3 * j + 1] * F[12 + 3 + 3 * j];
  PetscCall(PetscFree3(U, Udot, F));
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckPolynomialAndDamping(MbsTest *test)
{
  const PetscReal k[3] = {2000, -3e4, 2e7}, d0 = 3, c = 1e4, F = 5, v = 0.05;
  const PetscReal xs[4] = {-0.03, -0.004, 0.011, 0.025}, rates[3] = {-0.2, 0.01, 0.3};
  const char     *kinds[3] = {"bushing, amplitude damping", "spring_damper, friction damping", "rotational_spring, amplitude damping"};
  char            element[512];

  PetscFunctionBeginUser;
  for (PetscInt kind = 0; kind < 3; kind++) {
    MbsModel model;
    PetscInt n;

    if (kind == 0)
      PetscCall(PetscSNPrintf(element, sizeof(element), "{type: bushing, bodies: [ground, m], point: [1, 0, 0], stiffness: [{polynomial: [%g, %g, %g]}, 0, 0], damping: [{amplitude: [%g, %g]}, 0, 0]}", (double)k[0], (double)k[1], (double)k[2], (double)d0, (double)c));
    else if (kind == 1)
      PetscCall(PetscSNPrintf(element, sizeof(element), "{type: spring_damper, bodies: [ground, m], point_a: [0, 0, 0], point_b: [0, 0, 0], free_length: 0.9, stiffness: {polynomial: [%g, %g, %g]}, damping: {friction: [%g, %g, %g]}}", (double)k[0], (double)k[1], (double)k[2], (double)d0, (double)F, (double)v));
    else
      PetscCall(PetscSNPrintf(element, sizeof(element), "{type: rotational_spring, bodies: [ground, m], axis: [0, 0, 1], stiffness: {polynomial: [%g, %g, %g]}, damping: {amplitude: [%g, %g]}}", (double)k[0], (double)k[1], (double)k[2], (double)d0, (double)c));
    PetscCall(LoadLaw("test_force_laws_model.yaml", element, (PetscBool)(kind == 2), &model, &n));
    for (PetscInt i = 0; i < 4; i++)
      for (PetscInt r = 0; r < 3; r++) {
        PetscReal x = xs[i], got, want = k[0] * x + k[1] * x * x + k[2] * x * x * x;

        want += kind == 1 ? d0 * rates[r] + F * PetscTanhReal(rates[r] / v) : d0 * (1 + c * x * x) * rates[r];
        if (kind == 2) PetscCall(HingeTorque(model, n, x, rates[r], &got));
        else PetscCall(PointForce(model, n, kind == 1 ? 0.9 : 1, x, rates[r], &got));
        PetscCall(MbsTestClose(test, kinds[kind], got, want, 1e-12, 1e-12));
      }
    PetscCall(MbsModelDestroy(&model));
  }
  PetscFunctionReturn(0);
}

/* The table through arbitrary forces at its points, and the table of Cubic() at the uneven points X */
static PetscErrorCode CheckTable(MbsTest *test)
{
  const PetscReal arbitrary[NPOINT] = {-300, -80, -12, 0, 30, 45, 900};
  const PetscReal inside[5] = {-0.037, -0.02, -0.0013, 0.013, 0.041}, beyond[4] = {-0.09, -0.05, 0.06, 0.2};
  char            element[1024], list[2][256];

  PetscFunctionBeginUser;
  for (PetscInt table = 0; table < 2; table++) {
    MbsModel model;
    PetscInt n;
    size_t   length[2] = {0, 0};

    for (PetscInt j = 0; j < NPOINT; j++) {
      PetscReal slope, f = table ? Cubic(X[j], &slope) : arbitrary[j];

      PetscCall(PetscSNPrintf(list[0] + length[0], sizeof(list[0]) - length[0], "%s%.17g", j ? ", " : "", (double)X[j]));
      PetscCall(PetscSNPrintf(list[1] + length[1], sizeof(list[1]) - length[1], "%s%.17g", j ? ", " : "", (double)f));
      PetscCall(PetscStrlen(list[0], &length[0]));
      PetscCall(PetscStrlen(list[1], &length[1]));
    }
    PetscCall(PetscSNPrintf(element, sizeof(element), "{type: bushing, bodies: [ground, m], point: [1, 0, 0], stiffness: [{table: {deflection: [%s], force: [%s]}}, 0, 0], damping: [0, 0, 0]}", list[0], list[1]));
    PetscCall(LoadLaw("test_force_laws_table.yaml", element, PETSC_FALSE, &model, &n));
    for (PetscInt j = 0; j < NPOINT && !table; j++) {
      PetscReal got;

      PetscCall(PointForce(model, n, 1, X[j], 0, &got));
      PetscCall(MbsTestClose(test, "table: the force at a table point", got, arbitrary[j], 1e-12, 1e-12));
    }
    for (PetscInt i = 0; i < 5 && table; i++) {
      PetscReal got, slope, want = Cubic(inside[i], &slope);

      PetscCall(PointForce(model, n, 1, inside[i], 0, &got));
      PetscCall(MbsTestClose(test, "table of a cubic: the cubic between the points", got, want, 1e-10, 1e-10));
    }
    for (PetscInt i = 0; i < 4 && table; i++) {
      PetscReal got, slope, end = beyond[i] < 0 ? X[0] : X[NPOINT - 1], want = Cubic(end, &slope);

      want += slope * (beyond[i] - end);
      PetscCall(PointForce(model, n, 1, beyond[i], 0, &got));
      PetscCall(MbsTestClose(test, "table of a cubic: its tangent beyond the ends", got, want, 1e-10, 1e-10));
    }
    PetscCall(MbsModelDestroy(&model));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MbsTest test = {0, 0};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(CheckPolynomialAndDamping(&test));
  PetscCall(CheckTable(&test));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
