/*
  Model described: any multibody system of a model file (-model_file FILE; elements/described_file.c), in natural
  coordinates (seed 003, section 3: constant mass matrix, constraints at most quadratic, no velocity-quadratic
  terms), assembled element by element from the library of elements/.

  Coordinates q: per rigid body (r, u, v, w), 12, per point mass r, 3. Mass matrix M = blockdiag(m I3, Jbar (x) I3),
  Jbar = int x x^T dm = tr(I)/2 1 - I, constant. Constraints Phi(q) = 0: the six orthonormality conditions of each rigid
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

/*
  What the accelerometers of a model share at one (t, U, p): the accelerations a = -M^-1 R_v(t, U, U' = 0), the LU
  factors of M, and, once asked for, dR_v/dU at shift 0 and dR_v/dp at U' = (0, a). The channels are evaluated one
  after the other at the same node, so all but the first reuse them (9 accelerometers: one Jacobian instead of 9).
*/
typedef struct {
  PetscBool  have_a, have_J, have_Jp;
  PetscReal  t;
  PetscReal *U, *p;                 /* the key: U (n) and p (np) of what is stored */
  PetscReal *Udot, *R, *M, *J, *Jp; /* Udot (n: 0, then a in its v rows), R (n), LU of M (nq^2), J (n^2), Jp (n np) */
  PetscReal *b;                     /* one sensor's M^-1 dy/da (nq) */
  PetscInt  *pivots;
} MbsAccelerations;

typedef struct {
  MbsDescription      desc;
  PetscInt            nrigid;
  MbsBilinear        *orthonormal; /* 6 per rigid body */
  const MbsBilinear **row;         /* the nc constraint rows */
  PetscInt           *row_owner;   /* element index, or -1 - body index */
  PetscInt           *sensor;      /* the element of each output channel: every sensor, in the file's order */
  MbsAccelerations    acc;         /* what every accelerometer shares at one (t, U, p) */
} Described;

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
    PetscReal      m    = MbsValueOf(&body->mass, p);

    for (PetscInt k = 0; k < 3; k++) F[o + k] += m * a[o + k];
    if (!body->rigid) continue;
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt k = 0; k < 3; k++) F[o + 3 + 3 * i + k] += body->Jbar[3 * i + j] * a[o + 3 + 3 * j + k];
  }
}

/* J += scale M (J with leading dimension ld) */
static void AddMass(MbsDescription desc, const PetscReal p[], PetscReal scale, PetscReal J[], PetscInt ld)
{
  for (PetscInt b = 0; b < desc->nbody; b++) {
    const MbsBody *body = &desc->body[b];
    PetscInt       o    = body->offset;

    for (PetscInt k = 0; k < 3; k++) J[(o + k) * (ld + 1)] += scale * MbsValueOf(&body->mass, p);
    if (!body->rigid) continue;
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt k = 0; k < 3; k++) J[(o + 3 + 3 * i + k) + (o + 3 + 3 * j + k) * ld] += scale * body->Jbar[3 * i + j];
  }
}

/* -f of gravity and of the force elements (with excitation or without) into F (nq), and their -df/dq, -df/dv */
static PetscErrorCode AddForces(MbsDescription desc, PetscBool excitation, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody && F; b++)
    for (PetscInt k = 0; k < 3; k++) F[desc->body[b].offset + k] -= MbsValueOf(&desc->body[b].mass, desc->p) * desc->gravity[k];
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
  for (PetscInt b = 0; b < desc->nbody; b++) { /* d(m (r'' - g))/dm */
    const MbsBody *body = &desc->body[b];

    if (body->mass.param < 0) continue;
    for (PetscInt k = 0; k < 3; k++) MBS_IJ(Jp, nq + body->offset + k, body->mass.param, n) += Udot[nq + body->offset + k] - desc->gravity[k];
  }
  PetscCall(AddForces(desc, PETSC_TRUE, t, U, U + nq, NULL, NULL, NULL, Jp + nq, n));
  PetscFunctionReturn(0);
}

/*
  An accelerometer's y at the accelerations a = v' = M^-1 (f - Phi_q^T lambda) of the second GGL row, a = -M^-1 R_v(t, U,
  U' = 0) (R_v: the rows M v' - f + Phi_q^T lambda of the residual). With b = M^-1 dy/da (M symmetric and constant),
  dy/dU = dy/dU|_a - b^T dR_v/dU (shift 0) and dy/dp = -b^T dR_v/dp at U' = (0, a): the model's own Jacobians, computed
  once per (t, U, p) for all accelerometers (MbsAccelerations).
*/
static PetscErrorCode AccelerationsAt_Private(MbsModel model, PetscReal t, const PetscReal U[], PetscBool need_J, PetscBool need_Jp)
{
  MbsDescription    desc = Description(model);
  MbsAccelerations *acc  = &((Described *)model->data)->acc;
  PetscInt          n = model->n, nq = desc->nq, np = model->np, zero_pivot;

  PetscFunctionBeginUser;
  if (!acc->U) {
    PetscCall(PetscMalloc2(4 * n + np + nq * nq + n * n + n * np + nq, &acc->U, 3 * nq, &acc->pivots)); /* MbsDenseLUFactor: 3 nq */
    acc->p    = acc->U + n;
    acc->Udot = acc->p + np;
    acc->R    = acc->Udot + n;
    acc->M    = acc->R + n;
    acc->J    = acc->M + nq * nq;
    acc->Jp   = acc->J + n * n;
    acc->b    = acc->Jp + n * np;
  }
  if (!acc->have_a || acc->t != t || memcmp(acc->U, U, n * sizeof(PetscReal)) || memcmp(acc->p, model->p, np * sizeof(PetscReal))) {
    acc->have_a = acc->have_J = acc->have_Jp = PETSC_FALSE;
    acc->t                                   = t;
    PetscCall(PetscArraycpy(acc->U, U, n));
    PetscCall(PetscArraycpy(acc->p, model->p, np));
    PetscCall(PetscArrayzero(acc->Udot, n));
    PetscCall(PetscArrayzero(acc->R, n)); /* the residual's rows of v' add to it */
    PetscCall(PetscArrayzero(acc->M, nq * nq));
    PetscCall(DescribedResidual(model, t, U, acc->Udot, acc->R));
    AddMass(desc, model->p, 1, acc->M, nq);
    zero_pivot = MbsDenseLUFactor(nq, acc->M, acc->pivots);
    PetscCheck(zero_pivot < 0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Model file '%s': the mass matrix is singular, so its accelerometers have no acceleration", desc->file);
    for (PetscInt i = 0; i < nq; i++) acc->Udot[nq + i] = -acc->R[nq + i];
    MbsDenseLUSolve(nq, acc->M, acc->pivots, 1, acc->Udot + nq);
    acc->have_a = PETSC_TRUE;
  }
  if (need_J && !acc->have_J) {
    PetscReal *zero = acc->R; /* the residual is not needed any more: U' = 0 for the Jacobian at shift 0 */

    PetscCall(PetscArrayzero(zero, n));
    PetscCall(PetscArrayzero(acc->J, n * n));
    PetscCall(DescribedJacobian(model, t, U, zero, 0, acc->J));
    acc->have_J = PETSC_TRUE;
  }
  if (need_Jp && !acc->have_Jp) {
    PetscCall(PetscArrayzero(acc->Jp, n * np));
    PetscCall(DescribedJacobianP(model, t, U, acc->Udot, acc->Jp));
    acc->have_Jp = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode AccelerationOutput(MbsModel model, PetscInt e, PetscReal t, const PetscReal U[], PetscReal *y, PetscReal dydu[], PetscReal dydp[])
{
  MbsDescription    desc = Description(model);
  const MbsElement *el   = &desc->element[e];
  MbsAccelerations *acc  = &((Described *)model->data)->acc;
  PetscInt          n = model->n, nq = desc->nq, np = model->np;
  PetscReal         value, *b;

  PetscFunctionBeginUser;
  PetscCall(AccelerationsAt_Private(model, t, U, (PetscBool)(dydu != NULL), (PetscBool)(dydp != NULL)));
  b = acc->b;
  PetscCall(PetscArrayzero(b, nq)); /* the sensor adds dy/da */
  PetscCall(el->ops->sensor(desc, el, U, U + nq, acc->Udot + nq, y ? y : &value, dydu, dydu ? dydu + nq : NULL, b));
  if (!dydu && !dydp) PetscFunctionReturn(0);
  MbsDenseLUSolve(nq, acc->M, acc->pivots, 1, b);
  for (PetscInt j = 0; j < n && dydu; j++)
    for (PetscInt i = 0; i < nq; i++) dydu[j] -= b[i] * MBS_IJ(acc->J, nq + i, j, n);
  for (PetscInt k = 0; k < np && dydp; k++)
    for (PetscInt i = 0; i < nq; i++) dydp[k] -= b[i] * MBS_IJ(acc->Jp, nq + i, k, n);
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

/* dy/dp of sensor element e: only an accelerometer's value depends on the parameters (through f and M) */
static PetscErrorCode DescribedSensorP(MbsModel model, PetscInt e, PetscReal t, const PetscReal U[], PetscReal dydp[])
{
  PetscFunctionBeginUser;
  if (Description(model)->element[e].ops->acceleration) PetscCall(AccelerationOutput(model, e, t, U, NULL, NULL, dydp));
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

static void InitialPose(MbsDescription desc, PetscReal q[], PetscReal v[])
{
  for (PetscInt b = 0; b < desc->nbody; b++) MbsBodyPose(&desc->body[b], q + desc->body[b].offset, v + desc->body[b].offset);
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
  PetscReal     *A, *b, *G;

  PetscFunctionBeginUser;
  InitialPose(desc, U, U + nq);
  PetscCall(PetscCalloc3(m * m, &A, m, &b, nc * nq, &G));
  AugmentedMatrix(model, U, A, G);
  PetscCall(AddForces(desc, PETSC_TRUE, t0, U, U + nq, b, NULL, NULL, NULL, m));
  for (PetscInt i = 0; i < nq; i++) b[i] = -b[i];
  for (PetscInt r = 0; r < nc; r++) b[nq + r] = -MbsBilinearRate(desc, d->row[r], U + nq, U + nq); /* (Phi_q v)_q v = v^T Phi_qq v */
  MbsCallUndo(MbsDenseSolve_Private(model, m, A, b), PetscFree3(A, b, G));
  for (PetscInt i = 0; i < nq; i++) {
    Udot[i]      = U[nq + i];
    Udot[nq + i] = b[i];
  }
  for (PetscInt r = 0; r < nc; r++) U[2 * nq + r] = b[nq + r];
  PetscCall(PetscFree3(A, b, G));
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
      PetscCall(OwnerName(model, r, owner, sizeof(owner)));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the initial pose violates its constraint %" PetscInt_FMT " by %g; place the bodies so that the joint holds", owner, r - (d->row_owner[r] < 0 ? (r / 6) * 6 : desc->element[d->row_owner[r]].first_row) + 1, (double)phi);
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
  if (nc) PetscCall(SingularValues(nc, nq, G, s, VT)); /* G is overwritten */
  for (PetscInt j = 0; j < m; j++)
    for (PetscInt i = 0; i < nq; i++) N[i + j * nq] = nc ? MBS_IJ(VT, nc + j, i, nq) : (PetscReal)(i == j);
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
  PetscCall(PetscFree3(d->orthonormal, d->row, d->row_owner));
  PetscCall(PetscFree3(d->sensor, model->channel_name, model->channel_unit));
  PetscCall(PetscFree2(d->acc.U, d->acc.pivots));
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
  PetscInt       r = 0, k = 0;

  PetscFunctionBeginUser;
  for (PetscInt b = 0; b < desc->nbody; b++) {
    desc->body[b].offset = desc->nq;
    desc->nq += desc->body[b].rigid ? 12 : 3;
    d->nrigid += desc->body[b].rigid;
  }
  desc->nc = 6 * d->nrigid;
  for (PetscInt e = 0; e < desc->nelement; e++)
    if (desc->element[e].ops->kind == MBS_ELEMENT_CONSTRAINT) {
      desc->element[e].first_row = desc->nc;
      desc->nc += desc->element[e].nrow;
    }
  PetscCall(PetscMalloc3(6 * d->nrigid, &d->orthonormal, desc->nc, &d->row, desc->nc, &d->row_owner));
  for (PetscInt b = 0; b < desc->nbody; b++) {
    if (!desc->body[b].rigid) continue;
    OrthonormalRows(desc, b, d->orthonormal + 6 * k);
    for (PetscInt i = 0; i < 6; i++, r++) {
      d->row[r]       = &d->orthonormal[6 * k + i];
      d->row_owner[r] = -1 - b;
    }
    k++;
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
