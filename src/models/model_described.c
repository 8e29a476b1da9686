/*
  Model described: any multibody system of a model file (-model_file FILE; elements/described_file.c), in natural
  coordinates (seed 003, section 3: constant mass matrix, constraints at most quadratic, no velocity-quadratic
  terms), assembled element by element from the library of elements/.

  Coordinates q: per rigid body (r, u, v, w), 12, per point mass r, 3, per flexible body (r, u, v, w, gamma_jk) of
  elements/flexible.c, 3 (4 + 3 nmode). Mass matrix M = blockdiag(m I3, Jbar (x) I3), Jbar = int x x^T dm = tr(I)/2 1 - I,
  constant in time; m and the entries of I may be parameters, M(p) linear in each, so dF/dp gets dM/dp v'
  (DescribedJacobianP); a flexible body's is slot_mass (x) I3, singular, with the modal stiffness and damping among the
  forces and 8 rows per mode among the body's constraints. Constraints Phi(q) = 0: the six orthonormality conditions of each rigid
  body's axes (u.u = v.v = w.w = 1, u.v = v.w = w.u = 0) and the rows of the joints, each a bilinear scalar
  (elementimpl.h), so Phi_q is linear in q and every Phi_qq constant. As engine4, the index-3 DAE is integrated in the
  stabilised index-2 form of Gear, Gupta and Leimkuhler (GGL), U = (q, v, lambda, mu), n = 2 nq + 2 nc:

    q' - v + Phi_q^T mu      = 0      (nq)   mu = 0 on the exact solution; it keeps Phi(q) = 0 without drift
    M v' - f + Phi_q^T lambda = 0     (nq)   f = gravity + force elements (f depends on q, v, t, p)
    Phi_q v                  = 0      (nc)
    Phi(q)                   = 0      (nc)

  Jacobian: d/dq of Phi_q^T mu is sum_r mu_r Phi_r,qq; d/dq of Phi_q v is (Phi_r,qq v)^T per row; the force elements
  give -df/dq, -df/dv, -df/dp. Dense n x n for this slice; the assembly loops over bodies, rows and elements, so a
  sparse (AIJ) assembly later changes only where the entries go.

  Before any solve the model is checked (STYLE item 17): the file reader refuses unknown bodies, parameters, fields
  and element types, joints of a body to itself, inertia tensors of no body, orientations that are no rotation; here
  the initial pose and velocity must satisfy every constraint, and the constraint Jacobian must have full rank at the
  initial pose (no redundant joint), each fault named by entity and line.

  Linearisation (eigen): about the initial pose at rest, lambda of the static equilibrium (Phi_q^T lambda = f, least
  squares), and the free motions N, an orthonormal basis of the null space of Phi_q (SVD):
  M_r = N^T M N, C_r = -N^T f_v N, K_r = N^T (-f_q + sum_r lambda_r Phi_r,qq) N, nq of the model = nq - nc.
*/
#include "models/elements/elementimpl.h"

typedef struct {
  MbsDescription      desc;
  PetscInt            nbody_row;
  MbsBilinear        *body_row;  /* 6 per rigid or flexible body (orthonormal axes), 8 per mode of a flexible one */
  const MbsBilinear **row;       /* the nc constraint rows */
  PetscInt           *row_owner; /* element index, or -1 - body index */
  PetscInt           *sensor;    /* the element of each output channel: every sensor, in the file's order */
  PetscBool           flexible;  /* a flexible body: M is singular (flexible.c), positive definite only on the free motions */
} Described;

static void AugmentedMatrix(MbsModel, const PetscReal[], PetscReal[], PetscReal[]);

static PetscInt NQ(MbsModel model)
{
  return ((Described *)model->data)->desc->nq;
}

static PetscInt NC(MbsModel model)
{
  return ((Described *)model->data)->desc->nc;
}

static MbsDescription Description(MbsModel model)
{
  MbsDescription desc = ((Described *)model->data)->desc;

  desc->p = model->p;
  return desc;
}

/* F_v += M a (a: accelerations, nq) */
static void AddMassTimes(MbsDescription desc, const PetscReal p[], const PetscReal a[], PetscReal F[])
{
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = body->offset;
    PetscReal      m    = MbsValueOf(&body->mass, p), Jbar[9];

    if (body->flexible) { /* slot_mass (x) I3 */
      PetscInt ns = body->flexible->nslot;

      for (PetscInt s = 0; s < ns; s++)
        for (PetscInt t = 0; t < ns; t++)
          for (PetscInt k = 0; k < 3; k++) F[o + 3 * s + k] += body->flexible->slot_mass[s * ns + t] * a[o + 3 * t + k];
      continue;
    }
    for (PetscInt k = 0; k < 3; k++) F[o + k] += m * a[o + k];
    if (!body->rigid) continue;
    MbsBodyJbar(body, p, -1, Jbar);
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt k = 0; k < 3; k++) F[o + 3 + 3 * i + k] += Jbar[3 * i + j] * a[o + 3 + 3 * j + k];
  }
}

/* J += scale M (J with leading dimension ld) */
static void AddMass(MbsDescription desc, const PetscReal p[], PetscReal scale, PetscReal J[], PetscInt ld)
{
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = body->offset;
    PetscReal      Jbar[9];

    if (body->flexible) {
      PetscInt ns = body->flexible->nslot;

      for (PetscInt s = 0; s < ns; s++)
        for (PetscInt t = 0; t < ns; t++)
          for (PetscInt k = 0; k < 3; k++) J[(o + 3 * s + k) + (o + 3 * t + k) * ld] += scale * body->flexible->slot_mass[s * ns + t];
      continue;
    }
    for (PetscInt k = 0; k < 3; k++) J[(o + k) * (ld + 1)] += scale * MbsValueOf(&body->mass, p);
    if (!body->rigid) continue;
    MbsBodyJbar(body, p, -1, Jbar);
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt k = 0; k < 3; k++) J[(o + 3 + 3 * i + k) + (o + 3 + 3 * j + k) * ld] += scale * Jbar[3 * i + j];
  }
}

/*
  -f of gravity, of the flexible bodies' elasticity and damping, and of the force elements (with excitation or
  without) into F (nq), and their -df/dq, -df/dv, -df/dp. Gravity on a flexible body's slot s is int c_s dm g, row 0
  of its slot mass.
*/
static PetscErrorCode AddForces(MbsDescription desc, PetscBool excitation, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];

    for (PetscInt k = 0; k < 3 && F; k++) F[body->offset + k] -= MbsValueOf(&body->mass, desc->p) * desc->gravity[k];
    if (!body->flexible) continue;
    for (PetscInt s = 1; s < body->flexible->nslot && F; s++)
      for (PetscInt k = 0; k < 3; k++) F[body->offset + 3 * s + k] -= body->flexible->slot_mass[s] * desc->gravity[k];
    MbsFlexibleForce(desc, b, q, v, F, Jq, Jv, Jp, ld);
  }
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElement *el = &desc->element[e];

    if (el->ops->kind == MBS_ELEMENT_FORCE || (excitation && el->ops->kind == MBS_ELEMENT_EXCITATION)) PetscCall(el->ops->force(desc, el, t, q, v, F, Jq, Jv, Jp, ld));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedResidual(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal F[])
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         nq = desc->nq, nc = desc->nc;
  const PetscReal *q = U, *v = U + nq, *lambda = U + 2 * nq, *mu = U + 2 * nq + nc;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nq; i++) F[i] = Udot[i] - v[i];
  AddMassTimes(desc, model->p, Udot + nq, F + nq);
  PetscCall(AddForces(desc, PETSC_TRUE, t, q, v, F + nq, NULL, NULL, NULL, model->n));
  for (PetscInt r = 0; r < nc; r++) {
    MbsBilinearAddGradient(desc, d->row[r], q, mu[r], F, 1);
    MbsBilinearAddGradient(desc, d->row[r], q, lambda[r], F + nq, 1);
    F[2 * nq + r]      = MbsBilinearRate(desc, d->row[r], q, v);
    F[2 * nq + nc + r] = MbsBilinearValue(desc, d->row[r], q);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedJacobian(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal shift, PetscReal J[])
{
  Described       *d    = (Described *)model->data;
  MbsDescription   desc = Description(model);
  PetscInt         n = model->n, nq = desc->nq, nc = desc->nc;
  const PetscReal *q = U, *v = U + nq, *lambda = U + 2 * nq, *mu = U + 2 * nq + nc;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nq; i++) {
    MBS_IJ(J, i, i, n)      = shift;
    MBS_IJ(J, i, nq + i, n) = -1;
  }
  AddMass(desc, model->p, shift, &MBS_IJ(J, nq, nq, n), n);
  PetscCall(AddForces(desc, PETSC_TRUE, t, q, v, NULL, &MBS_IJ(J, nq, 0, n), &MBS_IJ(J, nq, nq, n), NULL, n));
  for (PetscInt r = 0; r < nc; r++) {
    const MbsBilinear *row = d->row[r];

    MbsBilinearAddHessian(desc, row, mu[r], J, n);                                 /* d(Phi_q^T mu)/dq */
    MbsBilinearAddHessian(desc, row, lambda[r], &MBS_IJ(J, nq, 0, n), n);          /* d(Phi_q^T lambda)/dq */
    MbsBilinearAddGradient(desc, row, q, 1, &MBS_IJ(J, 0, 2 * nq + nc + r, n), 1); /* Phi_q^T, column of mu_r */
    MbsBilinearAddGradient(desc, row, q, 1, &MBS_IJ(J, nq, 2 * nq + r, n), 1);     /* Phi_q^T, column of lambda_r */
    MbsBilinearAddRateGradient(desc, row, v, 1, &MBS_IJ(J, 2 * nq + r, 0, n), n);  /* d(Phi_q v)/dq */
    MbsBilinearAddGradient(desc, row, q, 1, &MBS_IJ(J, 2 * nq + r, nq, n), n);     /* d(Phi_q v)/dv */
    MbsBilinearAddGradient(desc, row, q, 1, &MBS_IJ(J, 2 * nq + nc + r, 0, n), n); /* Phi_q */
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedJacobianP(MbsModel model, PetscReal t, const PetscReal U[], const PetscReal Udot[], PetscReal Jp[])
{
  MbsDescription desc = Description(model);
  PetscInt       n = model->n, nq = desc->nq;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) { /* d(m (r'' - g))/dm and d(Jbar (x) I3 (u'', v'', w''))/dI_m */
    const MbsBody   *body = &desc->body[b];
    const PetscReal *a    = Udot + nq + body->offset + 3;

    for (PetscInt k = 0; k < 3 && body->mass.param >= 0; k++) MBS_IJ(Jp, nq + body->offset + k, body->mass.param, n) += Udot[nq + body->offset + k] - desc->gravity[k];
    for (PetscInt m = 0; m < 6 && body->rigid; m++) {
      PetscReal dJ[9];

      if (body->moment[m].param < 0) continue;
      MbsBodyJbar(body, NULL, m, dJ);
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++)
          for (PetscInt k = 0; k < 3; k++) MBS_IJ(Jp, nq + body->offset + 3 + 3 * i + k, body->moment[m].param, n) += dJ[3 * i + j] * a[3 * j + k];
    }
  }
  PetscCall(AddForces(desc, PETSC_TRUE, t, U, U + nq, NULL, NULL, NULL, Jp + nq, n));
  PetscFunctionReturn(0);
}

/* dy/dU_j -= b^T dR_v/dU_j for the first ncolumn columns (Jacobian at U' = 0), dy/dp -= b^T dR_v/dp at U' = (0, a);
   R_v the rows M v' - f + Phi_q^T lambda of the residual, J scratch of n max(n, np) */
static PetscErrorCode ChainAccelerations(MbsModel model, PetscReal t, const PetscReal U[], PetscReal Udot[], const PetscReal a[], const PetscReal b[], PetscInt ncolumn, PetscReal J[], PetscReal dydu[], PetscReal dydp[])
{
  PetscInt n = model->n, nq = NQ(model), np = model->np;

  PetscFunctionBeginUser;
  if (dydu) {
    PetscCall(DescribedJacobian(model, t, U, Udot, 0, J));
    for (PetscInt j = 0; j < ncolumn; j++)
      for (PetscInt i = 0; i < nq; i++) dydu[j] -= b[i] * MBS_IJ(J, nq + i, j, n);
  }
  if (dydp) {
    PetscCall(PetscArrayzero(J, n * PetscMax(n, np)));
    for (PetscInt i = 0; i < nq; i++) Udot[nq + i] = a[i];
    PetscCall(DescribedJacobianP(model, t, U, Udot, J));
    for (PetscInt k = 0; k < np; k++)
      for (PetscInt i = 0; i < nq; i++) dydp[k] -= b[i] * MBS_IJ(J, nq + i, k, n);
  }
  PetscFunctionReturn(0);
}

/*
  An accelerometer's y at the accelerations a = v' = M^-1 (f - Phi_q^T lambda) of the second GGL row, a = -M^-1 R_v(t, U,
  U' = 0) (R_v: the rows M v' - f + Phi_q^T lambda of the residual). With b = M^-1 dy/da (M symmetric and constant),
  dy/dU = dy/dU|_a - b^T dR_v/dU (shift 0) and dy/dp = -b^T dR_v/dp at U' = (0, a): the model's own Jacobians.
*/
static PetscErrorCode AccelerationOutput_Private(MbsModel model, PetscInt e, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[], PetscReal dydp[], PetscReal *work, PetscInt *pivots)
{
  MbsDescription    desc = Description(model);
  const MbsElement *el   = &desc->element[e];
  PetscInt          n = model->n, nq = desc->nq, zero_pivot;
  PetscReal        *Udot = work, *R = Udot + n, *Minv = R + n, *a = Minv + nq * nq, *b = a + nq, *J = b + nq;

  PetscFunctionBeginUser;
  PetscCall(DescribedResidual(model, t, U, Udot, R));
  AddMass(desc, model->p, 1, Minv, nq);
  zero_pivot = MbsDenseLUFactor(nq, Minv, pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model file '%s': the mass matrix is singular, so sensor '%s' has no acceleration", desc->file, el->name);
  for (PetscInt i = 0; i < nq; i++) a[i] = -R[nq + i];
  MbsDenseLUSolve(nq, Minv, pivots, 1, a);
  PetscCall(el->ops->sensor(desc, el, U, U + nq, a, y, dydu, dydu ? dydu + nq : NULL, b));
  if (!dydu && !dydp) PetscFunctionReturn(0);
  MbsDenseLUSolve(nq, Minv, pivots, 1, b);
  PetscCall(ChainAccelerations(model, t, U, Udot, a, b, n, J, dydu, dydp));
  PetscFunctionReturn(0);
}

/*
  An accelerometer's y when M is singular (a flexible body): a from the index-1 system A [a; l] = [f; -(v^T Phi_r,qq v)_r],
  A = [M Phi_q^T; Phi_q 0] (l = lambda on the exact solution, but not U's lambda). With [beta; eta] = A^-1 [dy/da; 0]
  (A symmetric): dy/dq += beta^T (f_q - sum_r l_r Phi_r,qq) - sum_r eta_r (Phi_r,qq a)^T, dy/dv += beta^T f_v -
  2 sum_r eta_r (Phi_r,qq v)^T, dy/dlambda = dy/dmu = 0, dy/dp = beta^T (f_p - M_p a): the model's own Jacobians at U
  with lambda = l and U' = (0, a).
*/
static PetscErrorCode AccelerationAugmented_Private(MbsModel model, PetscInt e, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[], PetscReal dydp[], PetscReal *work, PetscInt *pivots)
{
  Described        *d    = (Described *)model->data;
  MbsDescription    desc = Description(model);
  const MbsElement *el   = &desc->element[e];
  PetscInt          n = model->n, nq = desc->nq, nc = desc->nc, m = nq + nc, zero_pivot;
  PetscReal        *A = work, *z = A + m * m, *w = z + m, *G = w + m, *Ul = G + nc * nq, *Udot = Ul + n, *J = Udot + n;
  const PetscReal  *v = U + nq, *a = z, *l = z + nq, *beta = w, *eta = w + nq;

  PetscFunctionBeginUser;
  AugmentedMatrix(model, U, A, G);
  PetscCall(AddForces(desc, PETSC_TRUE, t, U, v, z, NULL, NULL, NULL, n));
  for (PetscInt i = 0; i < nq; i++) z[i] = -z[i];
  for (PetscInt r = 0; r < nc; r++) z[nq + r] = MbsBilinearRate(desc, d->row[r], Udot, v) - MbsBilinearRate(desc, d->row[r], v, v); /* s_q(v) v has the constants' terms of s_q(0) v besides v^T s_qq v */
  zero_pivot = MbsDenseLUFactor(m, A, pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model file '%s': the system of the accelerations is singular, so sensor '%s' has no acceleration", desc->file, el->name);
  MbsDenseLUSolve(m, A, pivots, 1, z);
  PetscCall(el->ops->sensor(desc, el, U, v, a, y, dydu, dydu ? dydu + nq : NULL, w));
  if (!dydu && !dydp) PetscFunctionReturn(0);
  MbsDenseLUSolve(m, A, pivots, 1, w);
  PetscCall(PetscArraycpy(Ul, U, n));
  PetscCall(PetscArraycpy(Ul + 2 * nq, l, nc));
  PetscCall(ChainAccelerations(model, t, Ul, Udot, a, beta, 2 * nq, J, dydu, dydp));
  for (PetscInt r = 0; r < nc && dydu; r++) {
    MbsBilinearAddRateGradient(desc, d->row[r], a, -eta[r], dydu, 1);
    MbsBilinearAddRateGradient(desc, d->row[r], v, -2 * eta[r], dydu + nq, 1);
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode AccelerationOutput(MbsModel model, PetscInt e, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[], PetscReal dydp[])
{
  PetscInt   n = model->n, nq = NQ(model), m = nq + NC(model);
  PetscReal *work, value;
  PetscInt  *pivots;

  PetscFunctionBeginUser;
  if (((Described *)model->data)->flexible) {
    PetscCall(PetscCalloc2(m * m + 2 * m + m * nq + 2 * n + n * PetscMax(n, model->np), &work, 3 * m, &pivots));
    MbsCallCleanup(AccelerationAugmented_Private(model, e, t, U, y ? y : &value, dydu, dydp, work, pivots), PetscFree2(work, pivots));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscCalloc2(2 * n + nq * nq + 2 * nq + n * PetscMax(n, model->np), &work, 3 * nq, &pivots));
  MbsCallCleanup(AccelerationOutput_Private(model, e, t, U, y ? y : &value, dydu, dydp, work, pivots), PetscFree2(work, pivots));
  PetscFunctionReturn(0);
}

/* The value of sensor element e and its derivatives dy/dU (may be NULL): an accelerometer's through the accelerations */
static PetscErrorCode DescribedSensor(MbsModel model, PetscInt e, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[])
{
  MbsDescription    desc = Description(model);
  const MbsElement *el   = &desc->element[e];

  PetscFunctionBeginUser;
  if (el->ops->acceleration) PetscCall(AccelerationOutput(model, e, t, U, y, dydu, NULL));
  else PetscCall(el->ops->sensor(desc, el, U, U + desc->nq, NULL, y, dydu, dydu ? dydu + desc->nq : NULL, NULL));
  PetscFunctionReturn(0);
}

/* dy/dp of sensor element e: an accelerometer's value depends on the parameters through f and M, a bushing load's
   through the bushing's stiffness and damping (sensor_p); the others' only through U */
static PetscErrorCode DescribedSensorP(MbsModel model, PetscInt e, PetscReal t, const PetscReal U[], PetscReal dydp[])
{
  MbsDescription    desc = Description(model);
  const MbsElement *el   = &desc->element[e];

  PetscFunctionBeginUser;
  if (el->ops->acceleration) PetscCall(AccelerationOutput(model, e, t, U, NULL, NULL, dydp));
  else if (el->ops->sensor_p) PetscCall(el->ops->sensor_p(desc, el, U, U + desc->nq, dydp));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedOutput(MbsModel model, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  PetscCall(DescribedSensor(model, Description(model)->output, t, U, y, dydu));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedOutputP(MbsModel model, PetscReal t, const PetscReal U[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  PetscCall(DescribedSensorP(model, Description(model)->output, t, U, dydp));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedChannelOutput(MbsModel model, PetscInt c, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[])
{
  PetscFunctionBeginUser;
  PetscCall(DescribedSensor(model, ((Described *)model->data)->sensor[c], t, U, y, dydu));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedChannelOutputP(MbsModel model, PetscInt c, PetscReal t, const PetscReal U[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  PetscCall(DescribedSensorP(model, ((Described *)model->data)->sensor[c], t, U, dydp));
  PetscFunctionReturn(0);
}

/* Every sensor element is an output channel, named as the element, in the element's unit */
static PetscErrorCode DescribedChannelsSetUp(MbsModel model, Described *d)
{
  MbsDescription desc = d->desc;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(desc->nelement, &d->sensor, desc->nelement, &model->channel_name, desc->nelement, &model->channel_unit));
  model->nchannel = 0;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    if (desc->element[e].ops->kind != MBS_ELEMENT_SENSOR) continue;
    d->sensor[model->nchannel]           = e;
    model->channel_name[model->nchannel] = desc->element[e].name;
    model->channel_unit[model->nchannel] = desc->element[e].ops->unit;
    model->nchannel++;
  }
  PetscFunctionReturn(0);
}

/* The size of the first excitation element [N or N m], for reports */
static PetscErrorCode DescribedExcitation(MbsModel model, PetscReal t, PetscReal *force)
{
  MbsDescription desc = Description(model);

  PetscFunctionBeginUser;
  *force = 0;
  for (PetscInt e = 0; e < desc->nelement; e++) {
    const MbsElement *el = &desc->element[e];

    if (el->ops->kind != MBS_ELEMENT_EXCITATION) continue;
    *force = el->ops->law(desc, el, t, NULL);
    break;
  }
  PetscFunctionReturn(0);
}

/* The file's pose and velocity; flexible bodies undeformed (gamma = 0) */
static void InitialPose(MbsDescription desc, PetscReal q[], PetscReal v[])
{
  for (PetscInt b = 0; b < desc->nbody; b++) {
    PetscInt o = desc->body[b].offset;

    for (PetscInt i = 12; i < 3 * MbsBodySlots(desc, b); i++) q[o + i] = v[o + i] = 0;
    MbsBodyPose(&desc->body[b], q + o, v + o);
  }
}

/* Phi_q (nc x nq, column-major) at q */
static void ConstraintJacobian(MbsModel model, const PetscReal q[], PetscReal G[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);

  for (PetscInt r = 0; r < desc->nc; r++) MbsBilinearAddGradient(desc, d->row[r], q, 1, G + r, desc->nc);
}

/* The index-1 matrix [M Phi_q^T; Phi_q 0] (m = nq + nc) at q, and Phi_q (nc x nq) into G */
static void AugmentedMatrix(MbsModel model, const PetscReal q[], PetscReal A[], PetscReal G[])
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = nq + nc;

  AddMass(desc, model->p, 1, A, m);
  ConstraintJacobian(model, q, G);
  for (PetscInt r = 0; r < nc; r++)
    for (PetscInt i = 0; i < nq; i++) MBS_IJ(A, nq + r, i, m) = MBS_IJ(A, i, nq + r, m) = MBS_IJ(G, r, i, nc);
}

/*
  Consistent U(t0), U'(t0): the file's pose and velocity, mu = 0, and (v', lambda) of the index-1 system
  [M Phi_q^T; Phi_q 0] [v'; lambda] = [f; -(Phi_q v)_q v].
*/
static PetscErrorCode DescribedInitialState(MbsModel model, PetscReal t0, PetscReal U[], PetscReal Udot[])
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = nq + nc;
  PetscReal     *A, *b, *G, *zero;

  PetscFunctionBeginUser;
  InitialPose(desc, U, U + nq);
  PetscCall(PetscCalloc4(m * m, &A, m, &b, nc * nq, &G, nq, &zero));
  AugmentedMatrix(model, U, A, G);
  PetscCall(AddForces(desc, PETSC_TRUE, t0, U, U + nq, b, NULL, NULL, NULL, m));
  for (PetscInt i = 0; i < nq; i++) b[i] = -b[i];
  /* (Phi_q v)_q v = v^T Phi_qq v: s_q(v) v holds the constants' terms s_q(0) v besides it */
  for (PetscInt r = 0; r < nc; r++) b[nq + r] = MbsBilinearRate(desc, d->row[r], zero, U + nq) - MbsBilinearRate(desc, d->row[r], U + nq, U + nq);
  MbsCallUndo(MbsDenseSolve_Private(model, m, A, b), PetscFree4(A, b, G, zero));
  for (PetscInt i = 0; i < nq; i++) {
    Udot[i]      = U[nq + i];
    Udot[nq + i] = b[i];
  }
  for (PetscInt r = 0; r < nc; r++) U[2 * nq + r] = b[nq + r];
  PetscCall(PetscFree4(A, b, G, zero));
  PetscFunctionReturn(0);
}

/*
  dU(t0)/dp: only lambda(t0) depends on p (pose and velocity are the file's). Differentiating the index-1 system,
  [M Phi_q^T; Phi_q 0] [dv'/dp; dlambda/dp] = [df/dp - dM/dp v'; 0] = [-(rows v of dF/dp at U(t0), U'(t0)); 0].
*/
static PetscErrorCode DescribedInitialStateP_Private(MbsModel model, PetscReal t0, const PetscReal U[], const PetscReal Udot[], PetscReal dUdp[], PetscReal A[], PetscReal G[], PetscReal Jp[], PetscInt pivots[])
{
  MbsDescription desc = Description(model);
  PetscInt       n = model->n, nq = desc->nq, nc = desc->nc, m = nq + nc, zero_pivot;

  PetscFunctionBeginUser;
  AugmentedMatrix(model, U, A, G);
  PetscCall(MbsModelJacobianP(model, t0, U, Udot, Jp));
  zero_pivot = MbsDenseLUFactor(m, A, pivots);
  PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model file '%s': the system of the initial accelerations is singular", desc->file);
  for (PetscInt j = 0; j < model->np; j++) {
    PetscReal *column = dUdp + j * n + nq; /* scratch: rows nq .. nq + m - 1 of column j, then moved to lambda */

    for (PetscInt i = 0; i < m; i++) column[i] = i < nq ? -MBS_IJ(Jp, nq + i, j, n) : 0;
    MbsDenseLUSolve(m, A, pivots, 1, column);
    for (PetscInt r = 0; r < nc; r++) dUdp[j * n + 2 * nq + r] = column[nq + r];
    for (PetscInt i = 0; i < nq; i++) column[i] = 0;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedInitialStateP(MbsModel model, PetscReal t0, const PetscReal U[], const PetscReal Udot[], PetscReal dUdp[])
{
  PetscInt   nq = NQ(model), nc = NC(model), m = nq + nc;
  PetscReal *A, *G, *Jp;
  PetscInt  *pivots;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc4(m * m, &A, nc * nq, &G, model->n * model->np, &Jp, 3 * m, &pivots));
  MbsCallCleanup(DescribedInitialStateP_Private(model, t0, U, Udot, dUdp, A, G, Jp, pivots), PetscFree4(A, G, Jp, pivots));
  PetscFunctionReturn(0);
}

/* Singular values s (min(m, n)) and V^T (n x n) of the m x n column-major A (overwritten), m >= 1 */
static PetscErrorCode SingularValues(PetscInt m, PetscInt n, PetscReal A[], PetscReal s[], PetscReal VT[])
{
  PetscBLASInt bm, bn, lwork, info, one = 1;
  PetscReal   *work, U;

  PetscFunctionBeginUser;
  PetscCall(PetscBLASIntCast(m, &bm));
  PetscCall(PetscBLASIntCast(n, &bn));
  PetscCall(PetscBLASIntCast(10 * (m + n) + 64, &lwork));
  PetscCall(PetscMalloc1(lwork, &work));
  LAPACKgesvd_("N", "A", &bm, &bn, A, &bm, s, &U, &one, VT, &bn, work, &lwork, &info);
  PetscCall(PetscFree(work));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK gesvd failed with info %d", (int)info);
  PetscFunctionReturn(0);
}

static PetscInt Rank(PetscInt count, const PetscReal s[])
{
  PetscInt rank = 0;

  for (PetscInt i = 0; i < count; i++) rank += s[i] > 1e-9 * s[0];
  return rank;
}

static PetscErrorCode OwnerName(MbsModel model, PetscInt r, char text[], size_t size)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = d->desc;
  PetscInt       o    = d->row_owner[r];

  PetscFunctionBeginUser;
  if (o < 0) PetscCall(PetscSNPrintf(text, size, "Model file '%s', line %" PetscInt_FMT ", body '%s'", desc->file, desc->body[-1 - o].line, desc->body[-1 - o].name));
  else PetscCall(PetscSNPrintf(text, size, "Model file '%s', line %" PetscInt_FMT ", element '%s' (%s)", desc->file, desc->element[o].line, desc->element[o].name, desc->element[o].type));
  PetscFunctionReturn(0);
}

/*
  The checks before any solve that need the assembled constraints: the initial pose and velocity satisfy every row,
  and the rows of each body and joint, added in the file's order, raise the rank of Phi_q by their number (the first
  joint that does not is redundant with those before it).
*/
static PetscErrorCode DescribedCheck_Private(MbsModel model, PetscReal *G, PetscReal *s, PetscReal *VT, PetscReal *q, PetscReal *v)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc;
  PetscReal      qscale = 1, vscale = 1;
  char           owner[PETSC_MAX_PATH_LEN + 128];

  PetscFunctionBeginUser;
  PetscCheck(nc < nq, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s': %" PetscInt_FMT " constraints on %" PetscInt_FMT " coordinates leave no free motion", desc->file, nc, nq);
  InitialPose(desc, q, v);
  for (PetscInt i = 0; i < nq; i++) {
    qscale = PetscMax(qscale, PetscAbsReal(q[i]));
    vscale = PetscMax(vscale, PetscAbsReal(v[i]));
  }
  for (PetscInt r = 0; r < nc; r++) {
    PetscReal phi = MbsBilinearValue(desc, d->row[r], q), rate = MbsBilinearRate(desc, d->row[r], q, v);

    if (PetscAbsReal(phi) > 1e-9 * qscale) {
      PetscInt first = r;

      while (first > 0 && d->row_owner[first - 1] == d->row_owner[r]) first--;
      PetscCall(OwnerName(model, r, owner, sizeof(owner)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the initial pose violates its constraint %" PetscInt_FMT " by %g; place the bodies so that the joint holds", owner, r - first + 1, (double)phi);
    }
    if (PetscAbsReal(rate) > 1e-9 * vscale) {
      PetscCall(OwnerName(model, r, owner, sizeof(owner)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the initial velocities violate its constraint (rate %g); give velocities the joint allows", owner, (double)rate);
    }
  }
  for (PetscInt r = 0, rank = 0; r < nc;) {
    PetscInt end = r + 1, new_rank;

    while (end < nc && d->row_owner[end] == d->row_owner[r]) end++;
    PetscCall(PetscArrayzero(G, nc * nq));
    for (PetscInt i = 0; i < end; i++) MbsBilinearAddGradient(desc, d->row[i], q, 1, G + i, end);
    PetscCall(SingularValues(end, nq, G, s, VT));
    new_rank = Rank(PetscMin(end, nq), s);
    if (new_rank < end) {
      PetscCall(OwnerName(model, r, owner, sizeof(owner)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: %" PetscInt_FMT " of its %" PetscInt_FMT " constraints repeat those before it (the constraint Jacobian has rank %" PetscInt_FMT " for %" PetscInt_FMT " rows at the initial pose); remove the redundant joint or use one that fixes fewer directions", owner, end - r - (new_rank - rank), end - r, new_rank, end);
    }
    rank = new_rank;
    r    = end;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedCheck(MbsModel model)
{
  PetscInt   nq = NQ(model), nc = NC(model);
  PetscReal *G, *s, *VT, *q, *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(nc * nq, &G, nq + nc, &s, nq * nq, &VT, nq, &q, nq, &v));
  MbsCallCleanup(DescribedCheck_Private(model, G, s, VT, q, v), PetscFree5(G, s, VT, q, v));
  PetscFunctionReturn(0);
}

/* N^T A N (nq x nq A, N nq x m) into R (m x m) */
static void Project(PetscInt nq, PetscInt m, const PetscReal N[], const PetscReal A[], PetscReal R[])
{
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt j = 0; j < m; j++) {
      PetscReal sum = 0;

      for (PetscInt k = 0; k < nq; k++)
        for (PetscInt l = 0; l < nq; l++) sum += N[k + i * nq] * A[k + l * nq] * N[l + j * nq];
      MBS_IJ(R, i, j, m) = sum;
    }
}

/* N (nq x m): an orthonormal basis of the null space of Phi_q at q, the free motions (SVD; G, s, VT: work) */
static PetscErrorCode FreeMotions(MbsModel model, const PetscReal q[], PetscReal G[], PetscReal s[], PetscReal VT[], PetscReal N[])
{
  PetscInt nq = NQ(model), nc = NC(model);

  PetscFunctionBeginUser;
  PetscCall(PetscArrayzero(G, nc * nq));
  ConstraintJacobian(model, q, G);
  if (nc) PetscCall(SingularValues(nc, nq, G, s, VT)); /* G is overwritten */
  for (PetscInt j = 0; j < model->nq; j++)
    for (PetscInt i = 0; i < nq; i++) N[i + j * nq] = nc ? MBS_IJ(VT, nc + j, i, nq) : (PetscReal)(i == j);
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedLinearize_Private(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[], PetscReal *work)
{
  Described     *d    = (Described *)model->data;
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = model->nq;
  PetscReal     *q = work, *v = q + nq, *R = v + nq, *G = R + nq, *VT = G + nc * nq, *s = VT + nq * nq, *N = s + nq + nc, *Mf = N + nq * m, *Cf = Mf + nq * nq, *Kf = Cf + nq * nq, *A = Kf + nq * nq, *lambda = A + nc * nc;
  PetscReal      unbalanced = 0, scale = 0;

  PetscFunctionBeginUser;
  InitialPose(desc, q, v);
  PetscCall(PetscArrayzero(v, nq));
  PetscCall(AddForces(desc, PETSC_FALSE, model->t0, q, v, R, Kf, Cf, NULL, nq)); /* R = -f at rest, without excitation */
  AddMass(desc, model->p, 1, Mf, nq);
  ConstraintJacobian(model, q, G);
  /* static lambda: (G G^T) lambda = G f = -G R */
  for (PetscInt r = 0; r < nc; r++) {
    lambda[r] = 0;
    for (PetscInt i = 0; i < nq; i++) lambda[r] -= MBS_IJ(G, r, i, nc) * R[i];
    for (PetscInt c = 0; c < nc; c++) {
      MBS_IJ(A, r, c, nc) = 0;
      for (PetscInt i = 0; i < nq; i++) MBS_IJ(A, r, c, nc) += MBS_IJ(G, r, i, nc) * MBS_IJ(G, c, i, nc);
    }
  }
  if (nc) PetscCall(MbsDenseSolve_Private(model, nc, A, lambda));
  for (PetscInt i = 0; i < nq; i++) {
    PetscReal residual = R[i];

    for (PetscInt r = 0; r < nc; r++) residual += MBS_IJ(G, r, i, nc) * lambda[r];
    unbalanced = PetscMax(unbalanced, PetscAbsReal(residual));
    scale      = PetscMax(scale, PetscAbsReal(R[i]));
  }
  PetscCheck(unbalanced <= 1e-8 * PetscMax(scale, 1), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Model file '%s': the initial pose is no static equilibrium (a generalised force of %g is not carried by the joints), so the modes about it mean nothing; start at rest in equilibrium",
             desc->file, (double)unbalanced);
  for (PetscInt r = 0; r < nc; r++) MbsBilinearAddHessian(desc, d->row[r], lambda[r], Kf, nq);
  PetscCall(FreeMotions(model, q, G, s, VT, N));
  Project(nq, m, N, Mf, M);
  Project(nq, m, N, Cf, C);
  Project(nq, m, N, Kf, K);
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedLinearize(MbsModel model, PetscReal M[], PetscReal C[], PetscReal K[])
{
  PetscInt   nq = NQ(model), nc = NC(model), m = model->nq;
  PetscReal *work;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(3 * nq + 2 * nc * nq + 4 * nq * nq + nq * m + 2 * nc + nc * nc + nq, &work));
  MbsCallCleanup(DescribedLinearize_Private(model, M, C, K, work), PetscFree(work));
  PetscFunctionReturn(0);
}

/*
  Body coordinates z of a mode (powertrain_mounts.md 8.1): per body, in the file's order, the displacement of its centre
  of mass and, for a rigid body, the small rotation vector phi, both in ground axes. A free motion dq = N y turns the
  axes (u, v, w) by du = phi x u, ..., and for any orthonormal triad (1/2) sum_e e x (phi x e) = phi, so
  phi = (u x du + v x dv + w x dw) / 2 at the initial pose. T = Z N.
*/
static PetscErrorCode DescribedModeCoordinates_Private(MbsModel model, PetscInt nz, PetscReal T[], PetscReal *work)
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, m = model->nq, row = 0;
  PetscReal     *q = work, *v = q + nq, *G = v + nq, *s = G + nc * nq, *VT = s + nq + nc, *N = VT + nq * nq;

  PetscFunctionBeginUser;
  InitialPose(desc, q, v);
  PetscCall(FreeMotions(model, q, G, s, VT, N));
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = body->offset;

    for (PetscInt j = 0; j < m; j++) {
      const PetscReal *dq = N + j * nq + o;

      for (PetscInt k = 0; k < 3; k++) T[row + k + j * nz] = dq[k];
      for (PetscInt e = 0; body->rigid && e < 3; e++) {
        const PetscReal *axis = q + o + 3 + 3 * e, *daxis = dq + 3 + 3 * e;

        for (PetscInt k = 0; k < 3; k++) T[row + 3 + k + j * nz] += 0.5 * (axis[(k + 1) % 3] * daxis[(k + 2) % 3] - axis[(k + 2) % 3] * daxis[(k + 1) % 3]);
      }
    }
    row += body->rigid ? 6 : 3;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedModeCoordinates(MbsModel model, PetscInt *nz, PetscReal **T, char **what)
{
  MbsDescription desc = Description(model);
  PetscInt       nq = desc->nq, nc = desc->nc, size = 64;
  PetscReal     *work;

  PetscFunctionBeginUser;
  *nz = 0;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    *nz += desc->body[b].rigid ? 6 : 3;
    size += MBS_NAME_LEN + 48;
  }
  PetscCall(PetscCalloc1(*nz * model->nq, T));
  PetscCall(PetscCalloc1(size, what));
  for (PetscInt b = 0; b < desc->nbody; b++) {
    PetscCall(PetscStrlcat(*what, b ? "; " : "", size));
    PetscCall(PetscStrlcat(*what, desc->body[b].name, size));
    PetscCall(PetscStrlcat(*what, desc->body[b].rigid ? ": u_x u_y u_z [m] phi_x phi_y phi_z [rad]" : ": u_x u_y u_z [m]", size));
  }
  PetscCall(PetscCalloc1(3 * nq + nc * nq + nc + nq * nq + nq * model->nq, &work));
  MbsCallCleanup(DescribedModeCoordinates_Private(model, *nz, *T, work), PetscFree(work));
  PetscFunctionReturn(0);
}

/* The engine speed of the engine-order loads: the file's, overridden by -stationary_rpm, -ramp_rpm, -ramp_time, -speed_profile */
static PetscErrorCode DescribedSetFromOptions(MbsModel model, PetscOptionItems *PetscOptionsObject)
{
  MbsDescription desc = Description(model);

  PetscFunctionBeginUser;
  if (desc->engine_order) PetscCall(MbsSpeedProfileSetFromOptions(PetscOptionsObject, &desc->speed));
  PetscFunctionReturn(0);
}

static PetscErrorCode DescribedDestroy(MbsModel model)
{
  Described *d = (Described *)model->data;

  PetscFunctionBeginUser;
  PetscCall(MbsDescriptionDestroy(&d->desc));
  PetscCall(PetscFree3(d->body_row, d->row, d->row_owner));
  PetscCall(PetscFree3(d->sensor, model->channel_name, model->channel_unit));
  PetscCall(PetscFree(model->data));
  PetscFunctionReturn(0);
}

/* The six rows u.u - 1, v.v - 1, w.w - 1, u.v, v.w, w.u of a rigid body */
static void OrthonormalRows(MbsDescription desc, PetscInt b, MbsBilinear row[6])
{
  const PetscInt pair[6][2] = {
    {0, 0},
    {1, 1},
    {2, 2},
    {0, 1},
    {1, 2},
    {2, 0}
  };

  for (PetscInt r = 0; r < 6; r++) {
    PetscReal    ei[3] = {0, 0, 0}, ej[3] = {0, 0, 0};
    MbsVectorMap a, c;

    ei[pair[r][0]] = 1;
    ej[pair[r][1]] = 1;
    MbsMapDirection(desc, b, ei, &a);
    MbsMapDirection(desc, b, ej, &c);
    row[r] = (MbsBilinear){0};
    MbsBilinearProduct(&a, &c, 1, &row[r]);
    row[r].c = r < 3 ? -1 : 0;
  }
}

static PetscErrorCode DescribedSetUp(MbsModel model, Described *d)
{
  MbsDescription desc = d->desc;
  PetscInt       r    = 0;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    desc->body[b].offset = desc->nq;
    desc->nq += 3 * MbsBodySlots(desc, b);
    d->nbody_row += desc->body[b].rigid ? 6 : 0;
    d->nbody_row += desc->body[b].flexible ? 8 * desc->body[b].flexible->nmode : 0;
  }
  desc->nc = d->nbody_row;
  for (PetscInt e = 0; e < desc->nelement; e++)
    if (desc->element[e].ops->kind == MBS_ELEMENT_CONSTRAINT) {
      desc->element[e].first_row = desc->nc;
      desc->nc += desc->element[e].nrow;
    }
  PetscCall(PetscMalloc3(d->nbody_row, &d->body_row, desc->nc, &d->row, desc->nc, &d->row_owner));
  for (PetscInt b = 0; b < desc->nbody; b++) {
    PetscInt count = 0;

    if (!desc->body[b].rigid) continue;
    OrthonormalRows(desc, b, d->body_row + r);
    count = 6;
    if (desc->body[b].flexible) {
      MbsFlexibleRows(desc, b, d->body_row + r + 6);
      count += 8 * desc->body[b].flexible->nmode;
    }
    for (PetscInt i = 0; i < count; i++, r++) {
      d->row[r]       = &d->body_row[r];
      d->row_owner[r] = -1 - b;
    }
  }
  for (PetscInt e = 0; e < desc->nelement; e++) {
    if (desc->element[e].ops->kind != MBS_ELEMENT_CONSTRAINT) continue;
    for (PetscInt i = 0; i < desc->element[e].nrow; i++, r++) {
      d->row[r]       = &desc->element[e].row[i];
      d->row_owner[r] = e;
    }
  }
  PetscCall(PetscMalloc1(3 * desc->nq * desc->nq + 4 * desc->nq + desc->nparam, &desc->work));
  PetscCall(MbsModelSetUp_Private(model, 2 * desc->nq + 2 * desc->nc, desc->nq - desc->nc, desc->nparam, desc->param_info));
  for (PetscInt i = 2 * desc->nq; i < model->n; i++) model->differential[i] = PETSC_FALSE;
  /* measured on the chain (CN 2.5 ms, 5 s): the Jacobian barely changes from step to step; a fresh one every 5th Newton
     iteration takes 1176 factorisations instead of 5628 for 3 % more residuals and moves the output by 3e-13. Newton
     then converges linearly and stops nearer its tolerance: the spherical joint's |Phi_q v| grows from 2e-14 to 2.7e-12
     (test_drift), and past 3e-10 at a lag of 8, beyond the 1e-10 of "constraints kept to rounding" */
  model->jacobian_lag = 5;
  /* a flexible body's modal stiffness acts on coordinates without mass of their own (flexible.c): with Jacobians 5
     iterations old, Newton stagnates at |F| ~ 5e-5 on the swinging beam of inputs/models/flexible/pendulum.yaml at
     t = 0.076 s whatever the step; with fresh ones it keeps the constraints to 2e-14 over 2 s (test_drift) */
  for (PetscInt b = 0; b < desc->nbody; b++)
    if (desc->body[b].flexible) {
      model->jacobian_lag = 1;
      d->flexible         = PETSC_TRUE;
    }
  PetscFunctionReturn(0);
}

PetscErrorCode MbsModelCreate_Described(MbsModel model)
{
  Described     *d;
  MbsDescription desc;

  PetscFunctionBeginUser;
  PetscCheck(model->model_file[0], model->comm, PETSC_ERR_ARG_WRONG, "Model described needs its model file: -model_file FILE");
  PetscCall(PetscNew(&d));
  model->data        = d;
  model->ops.destroy = DescribedDestroy; /* from here on, MbsModelDestroy frees what was read even after an error */
  PetscCall(MbsDescriptionRead(model->model_file, &d->desc));
  /* once, beside the read: results name the file as it was read, however often they are written */
  PetscCall(MbsChecksumFile("-model_file", model->model_file, &model->model_file_checksum));
  desc = d->desc;
  PetscCall(DescribedSetUp(model, d));
  PetscCall(DescribedCheck(model));
  PetscCall(DescribedChannelsSetUp(model, d));
  model->ops.residual         = DescribedResidual;
  model->ops.jacobian         = DescribedJacobian;
  model->ops.jacobian_p       = DescribedJacobianP;
  model->ops.output           = DescribedOutput;
  model->ops.output_p         = DescribedOutputP;
  model->ops.channel_output   = DescribedChannelOutput;
  model->ops.channel_output_p = DescribedChannelOutputP;
  model->ops.initial_state    = DescribedInitialState;
  model->ops.initial_state_p  = DescribedInitialStateP;
  model->ops.linearize        = DescribedLinearize;
  model->ops.mode_coordinates = DescribedModeCoordinates;
  model->ops.excitation       = DescribedExcitation;
  model->ops.set_from_options = DescribedSetFromOptions;
  model->constant_mass        = PETSC_TRUE;
  model->output_name          = desc->element[desc->output].name;
  model->output_unit          = desc->element[desc->output].ops->unit;
  model->t0                   = desc->t0;
  model->tf                   = desc->tf;
  model->dt                   = desc->dt;
  model->dt_max               = desc->dt_max;
  PetscFunctionReturn(0);
}
