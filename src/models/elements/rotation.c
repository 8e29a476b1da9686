/*
  A frame whose entries are parameters (a body's initial orientation, a bushing's or maxwell's axes): the file gives
  three right-handed orthonormal axes at the parameters' file values, and at other values the nine numbers A(p) are in
  general no rotation. The frame used is A's polar factor R (A = R S, S symmetric positive definite), the rotation
  nearest to A in the Frobenius norm: every entry counts, no axis is preferred (Gram-Schmidt would ignore the third
  axis' entries and favour the first), and at a rotation R = A, so the file's frame is kept exactly.

  Its derivative for a change dA: with dR = R [omega]x, R^T dA = [omega]x S + dS, whose skew part is
  ([omega]x S + S [omega]x) / 2 = [(tr(S) 1 - S) omega]x / 2 for symmetric S, so

    (tr(S) 1 - S) omega = 2 vect(skew(R^T dA)),

  a positive definite 3 x 3 system (at a rotation, S = 1 and omega = vect(skew(R^T dA))).
  Matrices are row-major: A[3 i + j] = A_ij; the file's axes are the rows.
*/
#include "models/elements/elementimpl.h"

static PetscReal Determinant(const PetscReal A[9])
{
  return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* Adjugate transposed, the cofactor matrix: A^{-T} = Cofactor(A) / det(A) */
static void Cofactor(const PetscReal A[9], PetscReal C[9])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) {
      PetscInt i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;

      C[3 * i + j] = A[3 * i1 + j1] * A[3 * i2 + j2] - A[3 * i1 + j2] * A[3 * i2 + j1];
    }
}

/*
  MbsPolarRotation - The polar factor R of A (A = R S) and S = R^T A. Returns PETSC_FALSE, R and S untouched, when A
  is no right-handed frame (det A <= 1e-12 |A|^3). A nearest rotation exists there too (U diag(1, 1, sign det) V^T), but
  it is no longer A's polar factor, which Newton's iteration below needs, and it jumps where det A changes sign.
  Newton's iteration R <- (R + R^{-T}) / 2 converges quadratically from A (Higham, Functions of Matrices, 8.3).
*/
PetscBool MbsPolarRotation(const PetscReal A[9], PetscReal R[9], PetscReal S[9])
{
  PetscReal X[9], C[9], norm2 = 0;

  for (PetscInt k = 0; k < 9; k++) norm2 += A[k] * A[k];
  if (!(Determinant(A) > 1e-12 * norm2 * PetscSqrtReal(norm2))) return PETSC_FALSE;
  for (PetscInt k = 0; k < 9; k++) X[k] = A[k];
  for (PetscInt it = 0; it < 100; it++) {
    PetscReal det = Determinant(X), change = 0;

    Cofactor(X, C);
    for (PetscInt k = 0; k < 9; k++) {
      PetscReal next = (X[k] + C[k] / det) / 2;

      change = PetscMax(change, PetscAbsReal(next - X[k]));
      X[k]   = next;
    }
    if (change <= 8 * PETSC_MACHINE_EPSILON) break;
  }
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) S[3 * i + j] = X[i] * A[j] + X[3 + i] * A[3 + j] + X[6 + i] * A[6 + j];
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < i; j++) S[3 * i + j] = S[3 * j + i] = (S[3 * i + j] + S[3 * j + i]) / 2;
  for (PetscInt k = 0; k < 9; k++) R[k] = X[k];
  return PETSC_TRUE;
}

/* MbsPolarRotationDerivative - dR of the polar factor R of A = R S (MbsPolarRotation) for the change dA of A */
void MbsPolarRotationDerivative(const PetscReal R[9], const PetscReal S[9], const PetscReal dA[9], PetscReal dR[9])
{
  PetscReal K[9], b[3], T[9], Tinv[9], omega[3], trace = S[0] + S[4] + S[8], det;

  for (PetscInt i = 0; i < 3; i++) /* K = R^T dA */
    for (PetscInt j = 0; j < 3; j++) K[3 * i + j] = R[i] * dA[j] + R[3 + i] * dA[3 + j] + R[6 + i] * dA[6 + j];
  b[0] = K[7] - K[5]; /* 2 vect(skew(K)) */
  b[1] = K[2] - K[6];
  b[2] = K[3] - K[1];
  for (PetscInt k = 0; k < 9; k++) T[k] = (k % 4 == 0 ? trace : 0) - S[k];
  det = Determinant(T);
  Cofactor(T, Tinv); /* T is symmetric: its inverse is its cofactor matrix over det */
  for (PetscInt i = 0; i < 3; i++) omega[i] = (Tinv[3 * i] * b[0] + Tinv[3 * i + 1] * b[1] + Tinv[3 * i + 2] * b[2]) / det;
  for (PetscInt i = 0; i < 3; i++) { /* dR = R [omega]x */
    const PetscReal *r = R + 3 * i;

    dR[3 * i]     = r[1] * omega[2] - r[2] * omega[1];
    dR[3 * i + 1] = r[2] * omega[0] - r[0] * omega[2];
    dR[3 * i + 2] = r[0] * omega[1] - r[1] * omega[0];
  }
}
