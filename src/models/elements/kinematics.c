/*
  Vector maps linear in the natural coordinates, and the bilinear scalars built from them (elementimpl.h).

  A map a(q) = A q + k with A = sum over its bodies of [c0 I, c1 I, c2 I, c3 I] on (r, u, v, w) of that body (r only
  for a point mass; on a flexible body also scale shape_m I on its slots gamma_m). A bilinear scalar s = sum_i sign_i a_i(q).b_i(q) + c has

    s_q = sum_i sign_i (b_i^T A_i + a_i^T B_i),   s_qq = sum_i sign_i (A_i^T B_i + B_i^T A_i)   (constant),
    d/dq (s_q w) = sum_i sign_i ((A_i w)^T B_i + (B_i w)^T A_i).
*/
#include "models/elements/elementimpl.h"

/* Number of slots (r, u, v, w, gamma_jk) a body has: 4 for a rigid body, 4 + 3 nmode for a flexible one, 1 for a point mass */
PetscInt MbsBodySlots(MbsDescription desc, PetscInt body)
{
  const MbsBody *b = &desc->body[body];

  return b->flexible ? b->flexible->nslot : b->rigid ? 4 : 1;
}

/* The coefficient of slot s in term t of the map */
static PetscReal Coefficient(const MbsVectorMap *map, PetscInt t, PetscInt s)
{
  return s < 4 ? map->c[t][s] : map->shape[t] ? map->scale[t] * map->shape[t][s - 4] : 0;
}

/*
  The point of a body at body coordinates x (world coordinates for the ground). A point mass does not rotate: its
  frame is the ground's axes carried along, so its point x is at r + x.
*/
void MbsMapPoint(MbsDescription desc, PetscInt body, const PetscReal x[3], MbsVectorMap *map)
{
  *map = (MbsVectorMap){0};
  if (body == MBS_GROUND || !desc->body[body].rigid) {
    for (PetscInt k = 0; k < 3; k++) map->k[k] = x[k];
    if (body == MBS_GROUND) return;
  }
  map->nterm   = 1;
  map->body[0] = body;
  map->c[0][0] = 1;
  if (desc->body[body].rigid)
    for (PetscInt k = 0; k < 3; k++) map->c[0][1 + k] = x[k];
  if (desc->body[body].flexible) { /* a node (the reader refuses other points of a flexible body) */
    const MbsFlexible *flexible = desc->body[body].flexible;
    PetscInt           node     = MbsFlexibleNode(&desc->body[body], x);

    if (node >= 0) {
      map->shape[0] = flexible->shape + 3 * flexible->nmode * node;
      map->scale[0] = 1;
    }
  }
}

/* A direction fixed in a body (body axes); the ground's and a point mass's are constant */
void MbsMapDirection(MbsDescription desc, PetscInt body, const PetscReal d[3], MbsVectorMap *map)
{
  *map = (MbsVectorMap){0};
  if (body == MBS_GROUND || !desc->body[body].rigid) {
    MbsMapConstant(d, map);
    return;
  }
  map->nterm   = 1;
  map->body[0] = body;
  for (PetscInt k = 0; k < 3; k++) map->c[0][1 + k] = d[k];
}

void MbsMapConstant(const PetscReal k[3], MbsVectorMap *map)
{
  *map = (MbsVectorMap){0};
  for (PetscInt i = 0; i < 3; i++) map->k[i] = k[i];
}

/* d = b - a, for maps of one body each (or constants); two nodes of one flexible body stay two terms */
void MbsMapDifference(const MbsVectorMap *b, const MbsVectorMap *a, MbsVectorMap *d)
{
  *d = *b;
  for (PetscInt i = 0; i < 3; i++) d->k[i] -= a->k[i];
  for (PetscInt t = 0; t < a->nterm; t++) {
    PetscInt slot = -1;

    for (PetscInt s = 0; s < d->nterm; s++)
      if (d->body[s] == a->body[t] && (!d->shape[s] || !a->shape[t] || d->shape[s] == a->shape[t])) slot = s;
    if (slot < 0) {
      slot           = d->nterm++;
      d->body[slot]  = a->body[t];
      d->shape[slot] = NULL;
      d->scale[slot] = 0;
      for (PetscInt j = 0; j < 4; j++) d->c[slot][j] = 0;
    }
    for (PetscInt j = 0; j < 4; j++) d->c[slot][j] -= a->c[t][j];
    if (a->shape[t]) {
      d->shape[slot] = a->shape[t];
      d->scale[slot] -= a->scale[t];
    }
  }
}

/* The slots of term t of the map that can have a coefficient: a rigid body's gamma slots only with a shape */
static PetscInt TermSlots(MbsDescription desc, const MbsVectorMap *map, PetscInt t)
{
  PetscInt nslot = MbsBodySlots(desc, map->body[t]);

  return map->shape[t] ? nslot : PetscMin(nslot, 4);
}

/* A q (+ k with constant): the map at q, or its linear part applied to a velocity */
void MbsMapEval(MbsDescription desc, const MbsVectorMap *map, const PetscReal q[], PetscBool constant, PetscReal out[3])
{
  for (PetscInt k = 0; k < 3; k++) out[k] = constant ? map->k[k] : 0;
  for (PetscInt t = 0; t < map->nterm; t++) {
    const PetscReal *qb    = q + desc->body[map->body[t]].offset;
    PetscInt         nslot = TermSlots(desc, map, t);

    for (PetscInt s = 0; s < nslot; s++) {
      PetscReal c = Coefficient(map, t, s);

      for (PetscInt k = 0; k < 3; k++) out[k] += c * qb[3 * s + k];
    }
  }
}

/* out[i stride] += scale (A^T x)_i for the coordinates i of the map's bodies */
void MbsMapAddTranspose(MbsDescription desc, const MbsVectorMap *map, PetscReal scale, const PetscReal x[3], PetscReal out[], PetscInt stride)
{
  for (PetscInt t = 0; t < map->nterm; t++) {
    PetscInt offset = desc->body[map->body[t]].offset, nslot = TermSlots(desc, map, t);

    for (PetscInt s = 0; s < nslot; s++) {
      PetscReal c = scale * Coefficient(map, t, s);

      for (PetscInt k = 0; k < 3; k++) out[(offset + 3 * s + k) * stride] += c * x[k];
    }
  }
}

/*
  J += scale A^T K B (K 3 x 3 row-major, NULL: the identity), J column-major with leading dimension ld; with slots (K
  NULL) instead the slot matrix C of scale A^T B = C (x) I3, one entry per 3 x 3 block at the blocks' slots of the
  view, from the same products in the same order
*/
static void AddOuter(MbsDescription desc, const MbsVectorMap *A, const MbsVectorMap *B, const PetscReal K[9], PetscReal scale, PetscBool slots, PetscReal J[], PetscInt ld)
{
  for (PetscInt ta = 0; ta < A->nterm; ta++)
    for (PetscInt tb = 0; tb < B->nterm; tb++) {
      PetscInt oa = desc->body[A->body[ta]].offset, ob = desc->body[B->body[tb]].offset, nb = TermSlots(desc, B, tb);

      for (PetscInt sa = 0; sa < TermSlots(desc, A, ta); sa++) {
        PetscReal ca = scale * Coefficient(A, ta, sa);

        if (ca == 0) continue;
        for (PetscInt sb = 0; sb < nb; sb++) {
          PetscReal  c = ca * Coefficient(B, tb, sb);
          PetscReal *block;

          if (c == 0) continue;
          if (slots) {
            J[(oa / 3 + sa) + (ob / 3 + sb) * ld] += c;
            continue;
          }
          block = J + (oa + 3 * sa) + (ob + 3 * sb) * ld;
          for (PetscInt ka = 0; ka < 3 && !K; ka++) block[ka + ka * ld] += c;
          for (PetscInt ka = 0; ka < 3 && K; ka++)
            for (PetscInt kb = 0; kb < 3; kb++)
              if (K[3 * ka + kb] != 0) block[ka + kb * ld] += c * K[3 * ka + kb];
        }
      }
    }
}

void MbsMapAddOuter(MbsDescription desc, const MbsVectorMap *A, const MbsVectorMap *B, const PetscReal K[9], PetscReal scale, PetscReal J[], PetscInt ld)
{
  AddOuter(desc, A, B, K, scale, PETSC_FALSE, J, ld);
}

/* The element's next row (constraint row or coordinate), zeroed; at most 6 (fixed, bushing) */
MbsBilinear *MbsElementNewRow(MbsElement *el)
{
  el->row[el->nrow] = (MbsBilinear){0};
  return &el->row[el->nrow++];
}

/* Appends sign a.b to the scalar */
void MbsBilinearProduct(const MbsVectorMap *a, const MbsVectorMap *b, PetscReal sign, MbsBilinear *s)
{
  s->a[s->nproduct]    = *a;
  s->b[s->nproduct]    = *b;
  s->sign[s->nproduct] = sign;
  s->nproduct++;
}

PetscReal MbsBilinearValue(MbsDescription desc, const MbsBilinear *s, const PetscReal q[])
{
  PetscReal value = s->c;

  for (PetscInt i = 0; i < s->nproduct; i++) {
    PetscReal a[3], b[3];

    MbsMapEval(desc, &s->a[i], q, PETSC_TRUE, a);
    MbsMapEval(desc, &s->b[i], q, PETSC_TRUE, b);
    value += s->sign[i] * (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
  }
  return value;
}

/* The maps of product i at q (a, b) and their linear parts applied to w (aw, bw) */
static void ProductMaps(MbsDescription desc, const MbsBilinear *s, PetscInt i, const PetscReal q[], const PetscReal w[], PetscReal a[3], PetscReal b[3], PetscReal aw[3], PetscReal bw[3])
{
  MbsMapEval(desc, &s->a[i], q, PETSC_TRUE, a);
  MbsMapEval(desc, &s->b[i], q, PETSC_TRUE, b);
  MbsMapEval(desc, &s->a[i], w, PETSC_FALSE, aw);
  MbsMapEval(desc, &s->b[i], w, PETSC_FALSE, bw);
}

/* s_q w */
PetscReal MbsBilinearRate(MbsDescription desc, const MbsBilinear *s, const PetscReal q[], const PetscReal w[])
{
  PetscReal rate = 0;

  for (PetscInt i = 0; i < s->nproduct; i++) {
    PetscReal a[3], b[3], aw[3], bw[3];

    ProductMaps(desc, s, i, q, w, a, b, aw, bw);
    for (PetscInt k = 0; k < 3; k++) rate += s->sign[i] * (aw[k] * b[k] + a[k] * bw[k]);
  }
  return rate;
}

/* out[i stride] += scale (s_q)_i; returns s (MbsBilinearValue(), from the same map evaluations) */
PetscReal MbsBilinearAddGradient(MbsDescription desc, const MbsBilinear *s, const PetscReal q[], PetscReal scale, PetscReal out[], PetscInt stride)
{
  PetscReal value = s->c;

  for (PetscInt i = 0; i < s->nproduct; i++) {
    PetscReal a[3], b[3];

    MbsMapEval(desc, &s->a[i], q, PETSC_TRUE, a);
    MbsMapEval(desc, &s->b[i], q, PETSC_TRUE, b);
    MbsMapAddTranspose(desc, &s->a[i], scale * s->sign[i], b, out, stride);
    MbsMapAddTranspose(desc, &s->b[i], scale * s->sign[i], a, out, stride);
    value += s->sign[i] * (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
  }
  return value;
}

static void AddHessian(MbsDescription desc, const MbsBilinear *s, PetscReal scale, PetscBool slots, PetscReal J[], PetscInt ld)
{
  for (PetscInt i = 0; i < s->nproduct; i++) {
    AddOuter(desc, &s->a[i], &s->b[i], NULL, scale * s->sign[i], slots, J, ld);
    AddOuter(desc, &s->b[i], &s->a[i], NULL, scale * s->sign[i], slots, J, ld);
  }
}

/* J += scale s_qq */
void MbsBilinearAddHessian(MbsDescription desc, const MbsBilinear *s, PetscReal scale, PetscReal J[], PetscInt ld)
{
  AddHessian(desc, s, scale, PETSC_FALSE, J, ld);
}

/*@C
  MbsBilinearAddSlotHessian - C += scale times the slot matrix C_s of s_qq = C_s (x) I3 (every map acts alike on the
  3 components of a slot): C is nq/3 x nq/3 on the view's slots, leading dimension ld. Each of its entries is the sum
  that MbsBilinearAddHessian() adds into each of the 3 entries of its block, in the same order, so the two agree to the
  last bit; C_s is 9 times smaller. Not collective.
@*/
void MbsBilinearAddSlotHessian(MbsDescription desc, const MbsBilinear *s, PetscReal scale, PetscReal C[], PetscInt ld)
{
  AddHessian(desc, s, scale, PETSC_TRUE, C, ld);
}

/* out[j stride] += scale d(s_q w)/dq_j = scale (s_qq w)_j */
void MbsBilinearAddRateGradient(MbsDescription desc, const MbsBilinear *s, const PetscReal w[], PetscReal scale, PetscReal out[], PetscInt stride)
{
  for (PetscInt i = 0; i < s->nproduct; i++) {
    PetscReal aw[3], bw[3];

    MbsMapEval(desc, &s->a[i], w, PETSC_FALSE, aw);
    MbsMapEval(desc, &s->b[i], w, PETSC_FALSE, bw);
    MbsMapAddTranspose(desc, &s->b[i], scale * s->sign[i], aw, out, stride);
    MbsMapAddTranspose(desc, &s->a[i], scale * s->sign[i], bw, out, stride);
  }
}

/* Marks in mark (nq) the coordinates the scalar reads: the slots with a coefficient of its maps' terms, or with
   every_slot all slots of their bodies (points whose coordinates are parameters move, geometry.c) */
void MbsBilinearMark(MbsDescription desc, const MbsBilinear *s, PetscBool every_slot, PetscBool mark[])
{
  for (PetscInt i = 0; i < 2 * s->nproduct; i++) {
    const MbsVectorMap *map = i % 2 ? &s->b[i / 2] : &s->a[i / 2];

    for (PetscInt t = 0; t < map->nterm; t++)
      for (PetscInt slot = 0; slot < MbsBodySlots(desc, map->body[t]); slot++)
        for (PetscInt k = 0; k < 3 && (every_slot || Coefficient(map, t, slot) != 0); k++) mark[desc->body[map->body[t]].offset + 3 * slot + k] = PETSC_TRUE;
  }
}

/* (r, u, v, w) and their rates (r', u' = omega x u, ...) from the position r, the axes R (rows u, v, w), the velocity
   vel and the angular velocity omega (ground coordinates) */
static void Pose(PetscBool rigid, const PetscReal r[3], const PetscReal R[9], const PetscReal vel[3], const PetscReal omega[3], PetscReal q[], PetscReal v[])
{
  for (PetscInt k = 0; k < 3; k++) {
    q[k] = r[k];
    v[k] = vel[k];
  }
  for (PetscInt s = 0; s < 3 && rigid; s++) {
    const PetscReal *e = R + 3 * s;

    for (PetscInt k = 0; k < 3; k++) q[3 + 3 * s + k] = e[k];
    v[3 + 3 * s + 0] = omega[1] * e[2] - omega[2] * e[1];
    v[3 + 3 * s + 1] = omega[2] * e[0] - omega[0] * e[2];
    v[3 + 3 * s + 2] = omega[0] * e[1] - omega[1] * e[0];
  }
}

/* The body's initial coordinates (r, u, v, w) and rates at the file's values */
void MbsBodyPose(const MbsBody *body, PetscReal q[], PetscReal v[])
{
  Pose(body->rigid, body->r0, body->R0, body->v0, body->omega0, q, v);
}

/* The start's 18 numbers at p (position, velocity, angular velocity, the orientation's entries A), with j >= 0 instead
   their derivative by p_j (1 where p_j stands); whether the orientation holds a parameter */
static PetscBool StartAt(const MbsBody *body, const PetscReal p[], PetscInt j, PetscReal x[18])
{
  PetscBool turns = PETSC_FALSE;

  for (PetscInt i = 0; i < 18; i++) {
    x[i]  = j >= 0 ? (PetscReal)(body->start[i].param == j) : MbsValueOf(&body->start[i], p);
    turns = (PetscBool)(turns || (i >= 9 && body->start[i].param >= 0));
  }
  return turns;
}

/*
  The body's initial coordinates and rates at the parameters p (doc/model-files.md, "The initial state as
  parameters"): its start's fields at p, the axes the polar factor of the orientation's nine numbers A(p) (rotation.c)
  when they hold a parameter, else the file's. PETSC_FALSE, q and v untouched, where A(p) is no right-handed frame.
*/
PetscBool MbsBodyPoseAt(const MbsBody *body, const PetscReal p[], PetscReal q[], PetscReal v[])
{
  PetscReal x[18], R[9], S[9];

  if (!body->start_p) {
    MbsBodyPose(body, q, v);
    return PETSC_TRUE;
  }
  if (!StartAt(body, p, -1, x) || !body->rigid) {
    for (PetscInt k = 0; k < 9; k++) R[k] = body->R0[k];
  } else if (!MbsPolarRotation(x + 9, R, S)) return PETSC_FALSE;
  Pose(body->rigid, x, R, x + 3, x + 6, q, v);
  return PETSC_TRUE;
}

/* d/dp_j of MbsBodyPoseAt()'s q and v at p (where it returned PETSC_TRUE): dr, de = rows of dR (rotation.c), dv and
   d(omega x e) = domega x e + omega x de */
void MbsBodyPoseDerivative(const MbsBody *body, const PetscReal p[], PetscInt j, PetscReal dq[], PetscReal dv[])
{
  PetscReal x[18], dx[18], R[9], S[9], dR[9] = {0}, q[12], v[12];

  StartAt(body, p, j, dx);
  if (!StartAt(body, p, -1, x) || !body->rigid) {
    for (PetscInt k = 0; k < 9; k++) R[k] = body->R0[k];
  } else {
    (void)MbsPolarRotation(x + 9, R, S);
    MbsPolarRotationDerivative(R, S, dx + 9, dR);
  }
  Pose(body->rigid, dx, dR, dx + 3, x + 6, dq, dv); /* omega x de */
  Pose(body->rigid, x, R, x + 3, dx + 6, q, v);     /* domega x e */
  for (PetscInt i = 3; i < 12 && body->rigid; i++) dv[i] += v[i];
}

/*
  Jbar = int x x^T dm = tr(I)/2 1 - I (3 x 3), the mass matrix of the axes (u, v, w), at the parameters p (NULL: the
  file's values); with entry >= 0 instead dJbar/dI_entry, I_entry the entry-th of (Ixx, Iyy, Izz, Ixy, Iyz, Ixz) (Jbar
  is linear in them)
*/
void MbsBodyJbar(const MbsBody *body, const PetscReal p[], PetscInt entry, PetscReal J[9])
{
  const PetscInt row[6] = {0, 1, 2, 0, 1, 0}, col[6] = {0, 1, 2, 1, 2, 2};
  PetscReal      moment[6], trace;

  for (PetscInt m = 0; m < 6; m++) moment[m] = entry >= 0 ? (PetscReal)(m == entry) : p ? MbsValueOf(&body->moment[m], p) : body->moment[m].value;
  trace = moment[0] + moment[1] + moment[2];
  for (PetscInt k = 0; k < 9; k++) J[k] = k % 4 == 0 ? trace / 2 : 0;
  for (PetscInt m = 0; m < 6; m++) {
    J[3 * row[m] + col[m]] -= moment[m];
    if (m >= 3) J[3 * col[m] + row[m]] -= moment[m];
  }
}

/* c = a x b */
static void Cross(const PetscReal a[3], const PetscReal b[3], PetscReal c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* The coordinate axis least along the unit vector d, from which MbsPerpendicular() builds n1 */
PetscInt MbsPerpendicularBranch(const PetscReal d[3])
{
  PetscInt k = 0;

  for (PetscInt i = 1; i < 3; i++)
    if (PetscAbsReal(d[i]) < PetscAbsReal(d[k])) k = i;
  return k;
}

/*
  n1, n2 of MbsPerpendicular() from the coordinate axis e_k, and with dd (may be NULL) their derivatives dn1, dn2 along
  a change dd of d (d.dd = 0): with m = e_k - d_k d, n1 = m/|m|, n2 = d x n1,

    dm = -(dd_k d + d_k dd),   dn1 = (dm - n1 (n1.dm))/|m|,   dn2 = dd x n1 + d x dn1.

  A joint whose axis is a parameter keeps the file's k at every value (geometry.c), so that n1, n2 are smooth in it.
*/
void MbsPerpendicularAt(const PetscReal d[3], PetscInt k, const PetscReal dd[3], PetscReal n[2][3], PetscReal dn[2][3])
{
  PetscReal e[3] = {0, 0, 0}, length, dm[3], along = 0, a[3], b[3];

  e[k] = 1;
  for (PetscInt i = 0; i < 3; i++) n[0][i] = e[i] - d[k] * d[i];
  length = PetscSqrtReal(n[0][0] * n[0][0] + n[0][1] * n[0][1] + n[0][2] * n[0][2]);
  for (PetscInt i = 0; i < 3; i++) n[0][i] /= length;
  Cross(d, n[0], n[1]);
  if (!dd) return;
  for (PetscInt i = 0; i < 3; i++) dm[i] = -(dd[k] * d[i] + d[k] * dd[i]);
  for (PetscInt i = 0; i < 3; i++) along += n[0][i] * dm[i];
  for (PetscInt i = 0; i < 3; i++) dn[0][i] = (dm[i] - n[0][i] * along) / length;
  Cross(dd, n[0], a);
  Cross(d, dn[0], b);
  for (PetscInt i = 0; i < 3; i++) dn[1][i] = a[i] + b[i];
}

/* n1, n2 with (n1, n2, d) right-handed and orthonormal, d a unit vector; n1 from the coordinate axis least along d */
void MbsPerpendicular(const PetscReal d[3], PetscReal n1[3], PetscReal n2[3])
{
  PetscReal n[2][3];

  MbsPerpendicularAt(d, MbsPerpendicularBranch(d), NULL, n, NULL);
  for (PetscInt i = 0; i < 3; i++) {
    n1[i] = n[0][i];
    n2[i] = n[1][i];
  }
}

/* The map at the initial pose of its bodies (before their coordinates are numbered) */
void MbsMapInitial(MbsDescription desc, const MbsVectorMap *map, PetscReal x[3])
{
  for (PetscInt k = 0; k < 3; k++) x[k] = map->k[k];
  for (PetscInt t = 0; t < map->nterm; t++) {
    const MbsBody *body = &desc->body[map->body[t]];
    PetscReal      q[12], v[12];

    MbsBodyPose(body, q, v);
    for (PetscInt s = 0; s < (body->rigid ? 4 : 1); s++)
      for (PetscInt k = 0; k < 3; k++) x[k] += map->c[t][s] * q[3 * s + k];
  }
}
