static const char help[] = "Checks the polar factor of a parametrised frame (src/models/elements/rotation.c) against closed forms and its derivative against central differences.\n";

/*
  A = Q S0 with Q a rotation (Rodrigues) and S0 = V diag(s) V^T symmetric positive definite (V another rotation) has
  the polar factor Q and S = S0, whatever the scales s: the truth, independent of the Newton iteration. The derivative
  dR for a change dA is compared with (R(A + h dA) - R(A - h dA)) / 2h, at such an A and at a rotation A = Q (where it
  is Q [vect(skew(Q^T dA))]x). A reflection and a singular A are refused.
*/
#include "mbstest.h"
#include "models/elements/elementimpl.h"

static void Product(const PetscReal A[9], PetscBool transpose, const PetscReal B[9], PetscReal C[9]) /* C = A B or A^T B */
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) {
      C[3 * i + j] = 0;
      for (PetscInt k = 0; k < 3; k++) C[3 * i + j] += (transpose ? A[3 * k + i] : A[3 * i + k]) * B[3 * k + j];
    }
}

static PetscReal Distance(const PetscReal A[9], const PetscReal B[9])
{
  PetscReal d = 0;

  for (PetscInt k = 0; k < 9; k++) d = PetscMax(d, PetscAbsReal(A[k] - B[k]));
  return d;
}

/* The largest entry of |dR - central difference| over the entries of dR, for the change dA at A */
static PetscReal DerivativeError(const PetscReal A[9], const PetscReal dA[9], PetscReal *scale)
{
  PetscReal R[9], S[9], dR[9], Ap[9], Am[9], Rp[9], Rm[9], Sp[9], Sm[9], fd[9], h = 1e-6;

  MbsPolarRotation(A, R, S);
  MbsPolarRotationDerivative(R, S, dA, dR);
  for (PetscInt k = 0; k < 9; k++) {
    Ap[k] = A[k] + h * dA[k];
    Am[k] = A[k] - h * dA[k];
  }
  MbsPolarRotation(Ap, Rp, Sp);
  MbsPolarRotation(Am, Rm, Sm);
  for (PetscInt k = 0; k < 9; k++) fd[k] = (Rp[k] - Rm[k]) / (2 * h);
  *scale = 0;
  for (PetscInt k = 0; k < 9; k++) *scale = PetscMax(*scale, PetscAbsReal(fd[k]));
  return Distance(dR, fd);
}

int main(int argc, char **argv)
{
  MbsTest         test   = {0, 0};
  const PetscReal phi[3] = {0.4, -1.1, 0.7}, psi[3] = {-0.3, 0.2, 1.3};
  const PetscReal s[3]    = {2.5, 0.3, 1.2};
  const PetscReal dA[9]   = {0.3, -0.7, 0.2, 1.1, 0.4, -0.5, -0.2, 0.9, 0.6};
  const PetscReal flip[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1}, flat[9] = {1, 0, 0, 0, 1, 0, 1, 1, 0};
  PetscReal       Q[9], V[9], D[9], VD[9], S0[9], A[9], R[9], S[9], RtR[9], scale, error;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  MbsTestRotation(phi, Q);
  MbsTestRotation(psi, V);
  for (PetscInt k = 0; k < 9; k++) D[k] = k % 4 == 0 ? s[k / 4] : 0;
  Product(V, PETSC_FALSE, D, VD);
  for (PetscInt i = 0; i < 3; i++) /* S0 = V D V^T */
    for (PetscInt j = 0; j < 3; j++) S0[3 * i + j] = VD[3 * i] * V[3 * j] + VD[3 * i + 1] * V[3 * j + 1] + VD[3 * i + 2] * V[3 * j + 2];
  Product(Q, PETSC_FALSE, S0, A);

  PetscCall(MbsTestTrue(&test, "A = Q S0 has a polar factor", MbsPolarRotation(A, R, S)));
  PetscCall(MbsTestClose(&test, "polar factor of Q S0 is Q (largest entry error)", Distance(R, Q), 0, 0, 1e-14));
  PetscCall(MbsTestClose(&test, "S of Q S0 is S0 (largest entry error)", Distance(S, S0), 0, 0, 1e-13));
  Product(R, PETSC_TRUE, R, RtR);
  PetscCall(MbsTestClose(&test, "R^T R = 1 (largest entry error)", Distance(RtR, (PetscReal[]){1, 0, 0, 0, 1, 0, 0, 0, 1}), 0, 0, 1e-15));
  error = DerivativeError(A, dA, &scale);
  PetscCall(MbsTestClose(&test, "dR at Q S0 against central differences", error / scale, 0, 0, 1e-8));
  PetscCall(MbsTestTrue(&test, "dR at Q S0 is not zero", (PetscBool)(scale > 0.1)));

  PetscCall(MbsTestTrue(&test, "a rotation has a polar factor", MbsPolarRotation(Q, R, S)));
  PetscCall(MbsTestClose(&test, "polar factor of a rotation is itself", Distance(R, Q), 0, 0, 1e-15));
  error = DerivativeError(Q, dA, &scale);
  PetscCall(MbsTestClose(&test, "dR at a rotation against central differences", error / scale, 0, 0, 1e-8));

  PetscCall(MbsTestTrue(&test, "a reflection is refused", (PetscBool)!MbsPolarRotation(flip, R, S)));
  PetscCall(MbsTestTrue(&test, "a singular frame is refused", (PetscBool)!MbsPolarRotation(flat, R, S)));
  PetscCall(MbsTestFinish(&test));
  PetscCall(PetscFinalize());
  return 0;
}
