/*
  Flexible bodies in the flexible natural coordinate formulation (seed 003, section 3; doc/model-files.md, "Flexible bodies"): a rigid
  body's (r, u, v, w) and gamma_jk = delta_j e_k for each mode j and axis e_k of (u, v, w), read from the HDF5 file of
  a reduced finite-element model (mbsid beam writes one).

  A material point X moves with r + sum_k X_k e_k + sum_jk f_jk(X) gamma_jk: LINEAR in q, so the mass matrix is the
  constant slot_mass (x) I3 and every node is a vector map (kinematics.c) as a rigid body's points. delta itself is
  not a coordinate: on the constraint manifold gamma_jk = delta_j e_k, the 8 bilinear rows per mode

    e_a . gamma_jb = 0 (a != b),   e_1 . gamma_j1 - e_2 . gamma_j2 = 0,   e_2 . gamma_j2 - e_3 . gamma_j3 = 0

  leave one free direction per mode (gamma_j = delta_j (e_1, e_2, e_3), delta_j = e_k . gamma_jk). Since |e_k| = 1,
  |gamma_jk|^2 = delta_j^2 exactly, so the strain energy (1/2) omega_j^2 delta_j^2 = (1/6) omega_j^2 sum_k |gamma_jk|^2 is
  a constant stiffness on gamma, and the modal damping 2 zeta omega_j the constant damper (2/3) zeta omega_j on gamma
  (its dissipation 2 zeta omega_j (delta_j'^2 + delta_j^2 |e_k'|^2) / 3: the second term, of order delta^2 Omega^2, damps
  a deformed body's rotation slightly).
*/
#include "models/elements/elementimpl.h"

/* The 8 nmode rows gamma_jk = delta_j e_k of body b (header comment) */
void MbsFlexibleRows(MbsDescription desc, PetscInt b, MbsBilinear row[])
{
  const MbsFlexible *flexible = desc->body[b].flexible;

  for (PetscInt j = 0, r = 0; j < flexible->nmode; j++) {
    MbsVectorMap e[3], gamma[3];

    for (PetscInt k = 0; k < 3; k++) {
      PetscReal axis[3] = {0, 0, 0};

      axis[k] = 1;
      MbsMapDirection(desc, b, axis, &e[k]);
      gamma[k]          = (MbsVectorMap){0};
      gamma[k].nterm    = 1;
      gamma[k].body[0]  = b;
      gamma[k].shape[0] = flexible->unit + 3 * flexible->nmode * (3 * j + k);
      gamma[k].scale[0] = 1;
    }
    for (PetscInt a = 0; a < 3; a++)
      for (PetscInt c = 0; c < 3; c++) {
        if (a == c) continue;
        row[r] = (MbsBilinear){0};
        MbsBilinearProduct(&e[a], &gamma[c], 1, &row[r++]);
      }
    for (PetscInt k = 0; k < 2; k++) {
      row[r] = (MbsBilinear){0};
      MbsBilinearProduct(&e[k], &gamma[k], 1, &row[r]);
      MbsBilinearProduct(&e[k + 1], &gamma[k + 1], -1, &row[r++]);
    }
  }
}

/*
  The elastic and damping forces of body b on its gamma slots, -f = K gamma + C gamma' with K = omega_j^2 / 3 and
  C = 2 zeta omega_j / 3 on each coordinate of gamma_jk; F, Jq, Jv, Jp as MbsElementForceFn (offsets into the model's)
*/
void MbsFlexibleForce(MbsDescription desc, PetscInt b, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  const MbsBody     *body     = &desc->body[b];
  const MbsFlexible *flexible = body->flexible;
  PetscReal          zeta     = MbsValueOf(&flexible->damping, desc->p);

  for (PetscInt j = 0; j < flexible->nmode; j++) {
    PetscReal omega = PetscSqrtReal(flexible->stiffness[j]);

    for (PetscInt c = 0; c < 9; c++) {
      PetscInt i = body->offset + 3 * (4 + 3 * j) + c;

      if (F) F[i] += (flexible->stiffness[j] * q[i] + 2 * zeta * omega * v[i]) / 3;
      if (Jq) Jq[i + i * ld] += flexible->stiffness[j] / 3;
      if (Jv) Jv[i + i * ld] += 2 * zeta * omega / 3;
      if (Jp && flexible->damping.param >= 0) Jp[i + flexible->damping.param * ld] += 2 * omega * v[i] / 3;
    }
  }
}

/* The second derivatives of MbsFlexibleForce (MbsElementForceSecondFn): only the damper's in zeta, when zeta is parameter j */
void MbsFlexibleForceSecond(MbsDescription desc, PetscInt b, PetscInt j, PetscReal Dv[], PetscInt ld)
{
  const MbsBody     *body     = &desc->body[b];
  const MbsFlexible *flexible = body->flexible;

  if (flexible->damping.param < 0 || flexible->damping.param != j) return;
  for (PetscInt m = 0; m < flexible->nmode; m++)
    for (PetscInt c = 0; c < 9; c++) {
      PetscInt i = body->offset + 3 * (4 + 3 * m) + c;

      Dv[i + i * ld] += 2 * PetscSqrtReal(flexible->stiffness[m]) / 3;
    }
}
