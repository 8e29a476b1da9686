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

  A component p_j of the axis may be a parameter (geometry.c, "Axes": the normals keep the file's branch). S and C
  follow it through n_i and m_1 = R_b0^T R_a0 n_1, and stay zero and one at the initial pose; S_p = dn_2.m_1 + n_2.dm_1
  and C_p = dn_1.m_1 + n_1.dm_1 are bilinear in q, so

    theta_p  = (C S_p - S C_p) / rho^2
    theta_pq = (C_q S_p + C S_pq - S_q C_p - S C_pq) / rho^2 - 2 theta_p (S S_q + C C_q) / rho^2

  and -df/dp_j is MbsCoordinateForceP's with them. For design, theta_qq's derivative along (sq, e_j) is the one along sq
  (RotationalSpringForceSecond) with S_p, C_p, S_pq, C_pq, theta_pq joining dS, dC, a_S, a_C, theta_qq sq, plus the
  Hessians' own move (C S_pqq - S C_pqq) / rho^2.
*/
#include "models/elements/elementimpl.h"

/* The rows S (row 0) and C (row 1) of the angle of body b = el->body[1] relative to body a = el->body[0] about axis
   (the normals from the file's branch when the axis is a parameter) */
void MbsRelativeAngleRows(MbsDescription desc, MbsElement *el, const PetscReal axis[3])
{
  PetscReal    za[3], n[2][3], m1[3];
  MbsVectorMap normal[2], follower;

  MbsDescriptionLocalDirection(desc, el->body[0], axis, za);
  MbsPerpendicularAt(za, el->axis_k, NULL, n, NULL);
  el->normals = PETSC_TRUE;
  MbsRelativeDirection(desc, el, n[0], m1);
  for (PetscInt i = 0; i < 2; i++) MbsMapDirection(desc, el->body[0], n[i], &normal[i]);
  MbsMapDirection(desc, el->body[1], m1, &follower);
  MbsBilinearProduct(&normal[1], &follower, 1, MbsElementNewRow(el)); /* S, row 0 */
  MbsBilinearProduct(&normal[0], &follower, 1, MbsElementNewRow(el)); /* C, row 1 */
}

/*@C
  MbsRelativeAngleMoved - The rows callback of a relative angle's elements (rotational_spring.c, angle.c): S and C at
  the axis of the last update (geometry.c). Not collective.
@*/
void MbsRelativeAngleMoved(MbsDescription desc, MbsElement *el)
{
  PetscReal e[3], de[3];

  MbsJointAxisUnit(el, -1, e, de);
  el->nrow = 0;
  MbsRelativeAngleRows(desc, el, e);
}

/* S_p (drow[0]) and C_p (drow[1]) of the axis component p_j, bilinear scalars */
static void AngleRowsP(MbsDescription desc, const MbsElement *el, PetscInt j, MbsBilinear drow[2])
{
  PetscReal    e[3], de[3], za[3], dza[3], n[2][3], dn[2][3], m1[3], dm1[3];
  MbsVectorMap follower, dfollower;

  MbsJointAxisUnit(el, j, e, de);
  MbsDescriptionLocalDirection(desc, el->body[0], e, za);
  MbsDescriptionLocalDirection(desc, el->body[0], de, dza);
  MbsPerpendicularAt(za, el->axis_k, dza, n, dn);
  MbsRelativeDirection(desc, el, n[0], m1);
  MbsRelativeDirection(desc, el, dn[0], dm1);
  MbsMapDirection(desc, el->body[1], m1, &follower);
  MbsMapDirection(desc, el->body[1], dm1, &dfollower);
  for (PetscInt r = 0; r < 2; r++) { /* S (n_2), C (n_1) */
    MbsVectorMap normal, dnormal;

    drow[r] = (MbsBilinear){0};
    MbsMapDirection(desc, el->body[0], n[1 - r], &normal);
    MbsMapDirection(desc, el->body[0], dn[1 - r], &dnormal);
    MbsBilinearProduct(&dnormal, &follower, 1, &drow[r]);
    MbsBilinearProduct(&normal, &dfollower, 1, &drow[r]);
  }
}

/*@C
  MbsRelativeAngleP - theta_p and theta_pq (into grad_p, nq) of the axis component p_j at q, with S_q, C_q as
  MbsRelativeAngle() leaves them in desc->work. Not collective.
@*/
PetscReal MbsRelativeAngleP(MbsDescription desc, const MbsElement *el, PetscInt j, const PetscReal q[], PetscReal grad_p[])
{
  PetscInt    nq = desc->nq;
  PetscReal  *gS = desc->work, *gC = gS + nq;
  PetscReal   S = MbsBilinearValue(desc, &el->row[0], q), C = MbsBilinearValue(desc, &el->row[1], q), rho2 = S * S + C * C, S_p, C_p, theta_p;
  MbsBilinear drow[2];

  AngleRowsP(desc, el, j, drow);
  for (PetscInt i = 0; i < nq; i++) grad_p[i] = 0;
  S_p     = MbsBilinearAddGradient(desc, &drow[0], q, C / rho2, grad_p, 1);
  C_p     = MbsBilinearAddGradient(desc, &drow[1], q, -S / rho2, grad_p, 1);
  theta_p = (C * S_p - S * C_p) / rho2;
  for (PetscInt i = 0; i < nq; i++) grad_p[i] += (gC[i] * S_p - gS[i] * C_p - 2 * theta_p * (S * gS[i] + C * gC[i])) / rho2;
  return theta_p;
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
  PetscCall(MbsYAMLReadAxis(reader, node, "axis", el, axis));
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
  PetscReal *grad = desc->work + 2 * nq, *hess = grad + nq + 2 * nq * nq, *grad_p = hess + nq * nq, theta;

  PetscFunctionBeginUser;
  theta = MbsRelativeAngle(desc, el, q, grad, Jq ? hess : NULL);
  MbsCoordinateForce(desc, el, 0, 1, theta, grad, hess, v, F, Jq, Jv, Jp, ld);
  for (PetscInt c = 0; c < 3 && Jp && el->naxis; c++) { /* an axis component p_j, each once */
    PetscInt j = MbsJointAxisFirst(el, c);

    if (j < 0) continue;
    MbsCoordinateForceP(desc, el, 0, 1, theta, grad, v, MbsRelativeAngleP(desc, el, j, q, grad_p), grad_p, Jp + j * ld);
  }
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
  PetscInt    nq   = desc->nq;
  PetscReal  *grad = work, *hess = grad + nq, *third = hess + nq * nq, *aS = third + nq * nq, *aC = aS + nq, *dgrad = aC + nq, *grad_p = dgrad + nq;
  PetscReal  *gS = desc->work, *gC = gS + nq, *HS = gC + 2 * nq, *HC = HS + nq * nq; /* as MbsRelativeAngle() leaves them */
  PetscReal   theta, S, C, rho2, dS = 0, dC = 0, drho2, theta_p = 0;
  PetscBool   axis = MbsJointAxisParameter(el, j);
  MbsBilinear drow[2];

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
  if (axis) { /* the direction (sq, e_j): S_p, C_p, S_pq, C_pq and theta_pq join those along sq */
    AngleRowsP(desc, el, j, drow);
    theta_p = MbsRelativeAngleP(desc, el, j, q, grad_p);
    dS += MbsBilinearAddGradient(desc, &drow[0], q, 1, aS, 1);
    dC += MbsBilinearAddGradient(desc, &drow[1], q, 1, aC, 1);
    for (PetscInt i = 0; i < nq; i++) dgrad[i] += grad_p[i];
  }
  drho2 = 2 * (S * dS + C * dC);
  for (PetscInt k = 0; k < nq; k++) {
    PetscReal P = S * gS[k] + C * gC[k], dP = dS * gS[k] + S * aS[k] + dC * gC[k] + C * aC[k];

    for (PetscInt i = 0; i < nq; i++) {
      PetscReal dN = aS[i] * gC[k] + gS[i] * aC[k] - aC[i] * gS[k] - gC[i] * aS[k] + dC * HS[i + k * nq] - dS * HC[i + k * nq];

      third[i + k * nq] = (dN - 2 * dgrad[i] * P - 2 * grad[i] * dP - hess[i + k * nq] * drho2) / rho2;
    }
  }
  if (axis) { /* and the Hessians' own move, (C S_pqq - S C_pqq) / rho^2 */
    MbsBilinearAddHessian(desc, &drow[0], C / rho2, third, nq);
    MbsBilinearAddHessian(desc, &drow[1], -S / rho2, third, nq);
  }
  MbsCoordinateForceSecond(desc, el, 0, 1, theta, theta_p, axis ? grad_p : NULL, grad, hess, third, v, sq, sv, j, Dq, Dv, ld, aS);
  PetscFunctionReturn(0);
}

static const MbsElementType RotationalSpring = {MBS_ELEMENT_FORCE, RotationalSpringRead, RotationalSpringForce, NULL, NULL, PETSC_FALSE, NULL, NULL, RotationalSpringForceSecond, PETSC_FALSE, MbsRelativeAngleMoved};

PetscErrorCode MbsElementGetType_RotationalSpring(const MbsElementType **type)
{
  *type = &RotationalSpring;
  return 0;
}
