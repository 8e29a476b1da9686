/*
  Element rotational_spring: a torsion spring k [N m/rad] and damper d [N m s/rad] (or nonlinear laws of the angle,
  force_law.c) on the angle of body b relative to body a about an axis, theta = atan2(S, C) with
  S = (R_a n_2).(R_b m_1) and C = (R_a n_1).(R_b m_1), n_1, n_2 normals of the axis in body a and
  m_1 = R_b0^T R_a0 n_1 (theta = 0 at the initial pose). S and C are bilinear in q, so with rho^2 = S^2 + C^2 and
  N = C S_q - S C_q:

    theta_q  = N / rho^2
    theta_qq = (S_q^T C_q - C_q^T S_q + C S_qq - S C_qq) / rho^2 - 2 N^T (S S_q + C C_q) / rho^4

  The exact angle, not its sine: about a revolute joint's axis it is the relative angle at any size. Fields:
  bodies: [a, b], axis (ground coordinates at the initial pose), stiffness, damping.
*/
#include "models/elements/elementimpl.h"

/* The rows S (row 0) and C (row 1) of the angle of body b = el->body[1] relative to body a = el->body[0] about axis */
void MbsRelativeAngleRows(MbsDescription desc, MbsElement *el, const PetscReal axis[3])
{
  PetscReal    za[3], n[2][3], m1[3];
  MbsVectorMap normal[2], follower;

  MbsDescriptionLocalDirection(desc, el->body[0], axis, za);
  MbsPerpendicular(za, n[0], n[1]);
  MbsRelativeDirection(desc, el, n[0], m1);
  for (PetscInt i = 0; i < 2; i++) MbsMapDirection(desc, el->body[0], n[i], &normal[i]);
  MbsMapDirection(desc, el->body[1], m1, &follower);
  MbsBilinearProduct(&normal[1], &follower, 1, MbsElementNewRow(el)); /* S, row 0 */
  MbsBilinearProduct(&normal[0], &follower, 1, MbsElementNewRow(el)); /* C, row 1 */
}

/*
  theta = atan2(S, C), and theta_q into grad (nq) and, with hess not NULL, theta_qq into hess (nq x nq), with the
  scratch desc->work (3 nq + 2 nq^2). Of the Hessians S_qq, C_qq (in the scratch) and theta_qq, only the entries of the
  view's support (rows and columns) are written, as only those can be non-zero and MbsCoordinateForce reads no others
  (zeroing all 3 nq^2 was most of the Jacobian's time here); a caller that reads all of them zeroes them first.
*/
PetscReal MbsRelativeAngle(MbsDescription desc, const MbsElement *el, const PetscReal q[], PetscReal grad[], PetscReal hess[])
{
  PetscInt   nq = desc->nq;
  PetscReal *gS = desc->work, *gC = gS + nq, *HS = gC + 2 * nq, *HC = HS + nq * nq;
  PetscReal  S, C, rho2;

  for (PetscInt i = 0; i < 3 * nq; i++) desc->work[i] = 0;
  for (PetscInt jj = 0; jj < MbsSupportSize(desc) && hess; jj++)
    for (PetscInt ii = 0; ii < MbsSupportSize(desc); ii++) {
      PetscInt k = MbsSupportAt(desc, ii) + MbsSupportAt(desc, jj) * nq;

      HS[k] = HC[k] = 0;
    }
  S    = MbsBilinearAddGradient(desc, &el->row[0], q, 1, gS, 1);
  C    = MbsBilinearAddGradient(desc, &el->row[1], q, 1, gC, 1);
  rho2 = S * S + C * C;
  for (PetscInt i = 0; i < nq; i++) grad[i] = (C * gS[i] - S * gC[i]) / rho2;
  if (hess) {
    MbsBilinearAddHessian(desc, &el->row[0], 1, HS, nq);
    MbsBilinearAddHessian(desc, &el->row[1], 1, HC, nq);
    for (PetscInt jj = 0; jj < MbsSupportSize(desc); jj++)
      for (PetscInt ii = 0; ii < MbsSupportSize(desc); ii++) {
        PetscInt i = MbsSupportAt(desc, ii), j = MbsSupportAt(desc, jj);

        hess[i + j * nq] = (gS[i] * gC[j] - gC[i] * gS[j] + C * HS[i + j * nq] - S * HC[i + j * nq]) / rho2 - 2 * grad[i] * (S * gS[j] + C * gC[j]) / rho2;
      }
  }
  return PetscAtan2Real(S, C);
}

static PetscErrorCode RotationalSpringRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  PetscReal      axis[3];
  PetscInt       nbody = 0;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBodies(reader, node, el));
  PetscCall(MbsYAMLReadUnitVector(reader, node, "axis", axis));
  PetscCall(MbsForceLawsRead(reader, node, "stiffness", PETSC_TRUE, "N m", "rad", PETSC_TRUE, 1, el, 0, NULL));
  PetscCall(MbsForceLawsRead(reader, node, "damping", PETSC_FALSE, "N m", "rad", PETSC_FALSE, 1, el, 1, NULL));
  for (PetscInt i = 0; i < 2; i++) nbody += el->body[i] != MBS_GROUND && desc->body[el->body[i]].rigid;
  if (!nbody) PetscCall(MbsYAMLError(reader, node, "joins no rigid body: points and the ground do not rotate"));
  MbsRelativeAngleRows(desc, el, axis);
  el->row_forces = PETSC_TRUE; /* theta of its rows S, C */
  PetscFunctionReturn(0);
}

static PetscErrorCode RotationalSpringForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  PetscInt   nq   = desc->nq;
  PetscReal *grad = desc->work + 2 * nq, *hess = grad + nq + 2 * nq * nq, theta;

  PetscFunctionBeginUser;
  theta = MbsRelativeAngle(desc, el, q, grad, Jq ? hess : NULL);
  MbsCoordinateForce(desc, el, 0, 1, theta, grad, hess, v, F, Jq, Jv, Jp, ld);
  PetscFunctionReturn(0);
}

/*
  The force on theta (MbsCoordinateForceSecond), with theta_qq = (N_q - 2 theta_q P^T) / rho^2, P = S S_q + C C_q, and
  along sq (dS = S_q.sq, dC = C_q.sq, a_S = S_qq sq, a_C = C_qq sq, d rho^2 = 2 P.sq):
    theta_qq' = (dN_q - 2 (theta_qq sq) P^T - 2 theta_q dP^T - theta_qq d rho^2) / rho^2,
    dN_q = a_S C_q^T + S_q a_C^T - a_C S_q^T - C_q a_S^T + dC S_qq - dS C_qq,   dP = dS S_q + S a_S + dC C_q + C a_C
*/
static PetscErrorCode RotationalSpringForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  PetscInt   nq   = desc->nq;
  PetscReal *grad = work, *hess = grad + nq, *third = hess + nq * nq, *aS = third + nq * nq, *aC = aS + nq, *dgrad = aC + nq;
  PetscReal *gS = desc->work, *gC = gS + nq, *HS = gC + 2 * nq, *HC = HS + nq * nq; /* as MbsRelativeAngle() leaves them */
  PetscReal  theta, S, C, rho2, dS = 0, dC = 0, drho2;

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(HS, 2 * nq * nq)); /* all nq x nq are read below; MbsRelativeAngle writes the support's */
  PetscCall(PetscArrayzero(hess, nq * nq));
  theta = MbsRelativeAngle(desc, el, q, grad, hess);
  S     = MbsBilinearValue(desc, &el->row[0], q);
  C     = MbsBilinearValue(desc, &el->row[1], q);
  rho2  = S * S + C * C;
  for (PetscInt i = 0; i < nq; i++) {
    aS[i] = aC[i] = dgrad[i] = 0;
    for (PetscInt k = 0; k < nq; k++) {
      aS[i] += HS[i + k * nq] * sq[k];
      aC[i] += HC[i + k * nq] * sq[k];
      dgrad[i] += hess[i + k * nq] * sq[k];
    }
    dS += gS[i] * sq[i];
    dC += gC[i] * sq[i];
  }
  drho2 = 2 * (S * dS + C * dC);
  for (PetscInt k = 0; k < nq; k++) {
    PetscReal P = S * gS[k] + C * gC[k], dP = dS * gS[k] + S * aS[k] + dC * gC[k] + C * aC[k];

    for (PetscInt i = 0; i < nq; i++) {
      PetscReal dN = aS[i] * gC[k] + gS[i] * aC[k] - aC[i] * gS[k] - gC[i] * aS[k] + dC * HS[i + k * nq] - dS * HC[i + k * nq];

      third[i + k * nq] = (dN - 2 * dgrad[i] * P - 2 * grad[i] * dP - hess[i + k * nq] * drho2) / rho2;
    }
  }
  MbsCoordinateForceSecond(desc, el, 0, 1, theta, 0, NULL, grad, hess, third, v, sq, sv, j, Dq, Dv, ld, aS);
  PetscFunctionReturn(0);
}

static const MbsElementType RotationalSpring = {MBS_ELEMENT_FORCE, RotationalSpringRead, RotationalSpringForce, NULL, NULL, PETSC_FALSE, NULL, NULL, RotationalSpringForceSecond, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_RotationalSpring(const MbsElementType **type)
{
  *type = &RotationalSpring;
  return 0;
}
