/*
  Points whose coordinates are parameters (doc/model-files.md, "Geometry parameters"). A coordinate c of an element's
  point written {param: NAME} makes the point's body coordinates x (el->vector[k], k = 0, 1) affine in the parameter,

    x_k(p) = x_k(p0) + sum_g (p_g - p0_g) dx_g,

  dx_g = e_c for point_a, point_b and a point mass's point, and R0^T e_c for a rigid body's point given in ground
  coordinates at the initial pose (point: the same ground point moves on both bodies). The body point
  P_k = r + x1 u + x2 v + x3 w (r + x for a point mass, x for the ground) is then affine in p too, with

    dP_k/dp_g = dx1 u + dx2 v + dx3 w   (dx for the ground and a point mass: constant),

  a direction map of the body (kinematics.c), linear in q. An element's rows and callbacks read the points at the
  current parameters (MbsGeometryUpdate, before every evaluation); their derivatives by such a parameter follow from
  these maps (bushing.c, spring_damper.c, force.c, engine_force.c, position.c, velocity.c, acceleration.c,
  relative_displacement.c).

  A joint's point (ground coordinates at the initial pose, the same point of both bodies) moves its first npoint_row
  rows, each a(q).(P_b - P_a) with a(q) free of the points (spherical.c, point_on_line.c, point_on_plane.c and the
  joints built on them). Each is affine in p at fixed q, with the bilinear derivative

    dPhi_r/dp_j = a(q).D_j(q),   D_j = d(P_b - P_a)/dp_j,

  which vanishes at the initial pose q0 (both points move by the same ground vector), so Phi(q0, p) = 0 for every p.
  The model assembles d(Phi_q v)/dp, d(Phi_q^T lambda)/dp and d(Phi_q^T mu)/dp from its gradient and rate
  (model_described.c).

  Axes. The components of a joint's axis or normal a (ground coordinates at the initial pose; revolute, cylindrical,
  prismatic, point_on_line, point_on_plane) may be parameters. The rows read the unit axis e = a/|a| in the body axes,
  z_a = R_a0^T e, z_b = R_b0^T e, and the normals n_1, n_2 of z_a (MbsPerpendicular(), its branch kept at the file's), so

    de/dp_j = (I - e e^T) da/dp_j / |a|,   dz = R0^T de,   dn_i by MbsPerpendicularAt(),

  and each row that reads them keeps its shape with the derivative of one factor: a line's n_i(a).(P_b - P_a) and a
  plane's z(a).(P_b - P_a) have dPhi/dp_j = dn_i(a).(P_b - P_a) (dz(a).(P_b - P_a)), zero at the file's pose, and a
  common axis n_i(a).z(b) has dn_i(a).z(b) + n_i(a).dz(b), zero at the file's pose too (both the same ground vectors
  there, n_i(p).e(p) = 0 for every p). The file's pose therefore holds at every p, as for a joint's point. The rows are
  not affine in p: their Hessians are rebuilt at every update, their pattern is every coordinate of the row's bodies
  (model_described.c), and the frequency response's derivative, which needs affine rows, refuses such a parameter.
  A universal joint has two axes, a in body a and b in body b (el->cross, el->axis_b), and its cross row z_a(a).z_b(b) the
  derivative dz_a.z_b + z_a.dz_b, a common axis's shape; but there e_a(p).e_b(p) is not zero away from the file's
  values, so its start pose is projected onto the joints (model_described.c, moves_pose) as for a point_a.
  The other elements whose axis may be a parameter differentiate e themselves with MbsJointAxisUnit(): prescribed.c,
  rotational_spring.c (and angle.c through its rows), position.c (and velocity.c).
*/
#include "models/elements/elementimpl.h"

/* The unit axis e = a/|a| of components value at their values at (the last update's), and de/dp_j (zero for j < 0) */
static void AxisUnit(const MbsValue value[3], const PetscReal at[3], PetscInt j, PetscReal e[3], PetscReal de[3])
{
  PetscReal da[3], length = 0, along = 0;

  for (PetscInt c = 0; c < 3; c++) {
    da[c] = (PetscReal)(j >= 0 && value[c].param == j);
    length += PetscSqr(at[c]);
  }
  length = PetscSqrtReal(length);
  for (PetscInt c = 0; c < 3; c++) e[c] = at[c] / length;
  for (PetscInt c = 0; c < 3; c++) along += e[c] * da[c];
  for (PetscInt c = 0; c < 3; c++) de[c] = (da[c] - e[c] * along) / length;
}

/*@C
  MbsJointAxisUnit - el's unit axis e = a/|a| in ground axes at its axis of the last update (el->axis_at, which its
  rows hold), and de/dp_j = (I - e e^T) da/dp_j / |a| (zero for j < 0). Not collective.
@*/
void MbsJointAxisUnit(const MbsElement *el, PetscInt j, PetscReal e[3], PetscReal de[3])
{
  AxisUnit(el->axis, el->axis_at, j, e, de);
}

/*@C
  MbsJointAxisBranchDistance - For an element that builds normals of its axis from the coordinate axis e_k of body a
  (el->axis_k, kept at the file's so that they are smooth in the parameters), how far the unit axis z in body a's axes
  at the last update is from e_k: |e_k - z_k z| = sqrt(1 - z_k^2), the length the normals are divided by; 1 for any
  other element. Not collective.
@*/
PetscReal MbsJointAxisBranchDistance(MbsDescription desc, const MbsElement *el)
{
  PetscReal e[3], de[3], z[3];

  if (!el->normals || !el->naxis) return 1;
  MbsJointAxisUnit(el, -1, e, de);
  MbsDescriptionLocalDirection(desc, el->body[0], e, z);
  return PetscSqrtReal(PetscMax(0, 1 - PetscSqr(z[el->axis_k])));
}

/* The joint's vectors in body axes at its axes of the last update (el->axis_at, el->axis_b_at, which its rows hold): z[k]
   the axis in the axes of body k (a cross's axis_b in body b), n the normals of z[0] if the element builds them; with
   j >= 0 their derivatives by p_j */
static void JointAxisFrame(MbsDescription desc, const MbsElement *el, PetscInt j, PetscReal z[2][3], PetscReal n[2][3], PetscReal dz[2][3], PetscReal dn[2][3])
{
  for (PetscInt k = 0; k < 2; k++) {
    PetscReal e[3], de[3];

    if (k && el->cross) AxisUnit(el->axis_b, el->axis_b_at, j, e, de);
    else MbsJointAxisUnit(el, j, e, de);
    MbsDescriptionLocalDirection(desc, el->body[k], e, z[k]);
    MbsDescriptionLocalDirection(desc, el->body[k], de, dz[k]);
  }
  if (el->normals) MbsPerpendicularAt(z[0], el->axis_k, j >= 0 ? dz[0] : NULL, n, dn);
}

/*@C
  MbsJointAxisParameter - Whether p_j is a component of el's axis (or of a cross's axis_b). Not collective.
@*/
PetscBool MbsJointAxisParameter(const MbsElement *el, PetscInt j)
{
  for (PetscInt c = 0; c < 3 && el->naxis; c++)
    if (el->axis[c].param == j || (el->cross && el->axis_b[c].param == j)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/*@C
  MbsJointAxisFirst - The parameter of el's axis component c if no earlier component holds it, else -1 (the
  derivatives sum over a parameter's components, which MbsJointAxisUnit() does). Not collective.
@*/
PetscInt MbsJointAxisFirst(const MbsElement *el, PetscInt c)
{
  for (PetscInt k = 0; k < c; k++)
    if (el->axis[k].param == el->axis[c].param) return -1;
  return el->axis[c].param;
}

/*@C
  MbsSensorAxisP - dy/dp_j += E_j.w for each parameter p_j among the components of a sensor's axis, E_j = de/dp_j in
  ground axes or, for an axis that turns with the sensor's body (el->turning), that direction turning with it at q.
  Not collective.
@*/
void MbsSensorAxisP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal w[3], PetscReal dydp[])
{
  for (PetscInt c = 0; c < 3 && el->naxis; c++) {
    PetscInt     j = MbsJointAxisFirst(el, c);
    PetscReal    e[3], de[3], local[3];
    MbsVectorMap D;

    if (j < 0) continue;
    MbsJointAxisUnit(el, j, e, de);
    if (el->turning) {
      MbsDescriptionLocalDirection(desc, el->body[0], de, local);
      MbsMapDirection(desc, el->body[0], local, &D);
      MbsMapEval(desc, &D, q, PETSC_TRUE, de);
    }
    dydp[j] += de[0] * w[0] + de[1] * w[1] + de[2] * w[2];
  }
}

/*@C
  MbsJointAxisRowMoves - Whether el's row i follows axis components that are parameters. Not collective.
@*/
PetscBool MbsJointAxisRowMoves(const MbsElement *el, PetscInt i)
{
  return (PetscBool)(el->naxis && el->axis_row[i] != MBS_AXIS_NONE);
}

/* Row i's vectors (its type's shape, MbsAxisRow) with the joint's vectors z, n of JointAxisFrame(), or their
   derivatives dz, dn: the factor of body a as a map, and with common the one of body b */
static void JointAxisRowMaps(MbsDescription desc, const MbsElement *el, PetscInt i, PetscReal z[2][3], PetscReal n[2][3], MbsVectorMap *a, MbsVectorMap *b)
{
  switch (el->axis_row[i]) {
  case MBS_AXIS_LINE_1:
  case MBS_AXIS_COMMON_1:
    MbsMapDirection(desc, el->body[0], n[0], a);
    break;
  case MBS_AXIS_LINE_2:
  case MBS_AXIS_COMMON_2:
    MbsMapDirection(desc, el->body[0], n[1], a);
    break;
  default:
    MbsMapDirection(desc, el->body[0], z[0], a);
  }
  MbsMapDirection(desc, el->body[1], z[1], b);
}

/* Whether row i's factor of body b is the axis there (a common axis, a cross), not P_b - P_a */
static PetscBool JointAxisCommon(const MbsElement *el, PetscInt i)
{
  return (PetscBool)(el->axis_row[i] == MBS_AXIS_COMMON_1 || el->axis_row[i] == MBS_AXIS_COMMON_2 || el->axis_row[i] == MBS_AXIS_CROSS);
}

/*@C
  MbsGeometryUpdate - Moves el's points to the parameters desc->p and rebuilds the rows that depend on them; nothing
  when no coordinate moved since the last call (an element with row_p: its rows rebuilt at every call). Returns whether
  a point or a row's constant moved. Not collective.
@*/
PetscBool MbsGeometryUpdate(MbsDescription desc, MbsElement *el)
{
  PetscReal x[2][3];
  PetscBool moved = PETSC_FALSE;

  if (!el->ngeometry && !el->row_p && !el->naxis && !el->nframe) return PETSC_FALSE;
  for (PetscInt k = 0; k < 2; k++)
    for (PetscInt i = 0; i < 3; i++) x[k][i] = el->point0[k][i];
  for (PetscInt n = 0; n < el->ngeometry; n++) {
    const MbsGeometry *g = &el->geometry[n];

    for (PetscInt i = 0; i < 3; i++) x[g->point][i] += (desc->p[g->param] - g->p0) * g->dx[i];
  }
  for (PetscInt k = 0; k < 2; k++)
    for (PetscInt i = 0; i < 3; i++) {
      moved            = (PetscBool)(moved || x[k][i] != el->vector[k][i]);
      el->vector[k][i] = x[k][i];
    }
  for (PetscInt c = 0; c < 3 && el->naxis; c++) { /* an axis that is a parameter */
    PetscReal a = MbsValueOf(&el->axis[c], desc->p), b = el->cross ? MbsValueOf(&el->axis_b[c], desc->p) : 0;

    moved          = (PetscBool)(moved || a != el->axis_at[c] || (el->cross && b != el->axis_b_at[c]));
    el->axis_at[c] = a;
    if (el->cross) el->axis_b_at[c] = b;
  }
  for (PetscInt k = 0; k < 9 && el->nframe; k++) { /* a bushing's axes, whose polar factor its rows take (bushing.c) */
    PetscReal a = MbsValueOf(&el->frame[k], desc->p);

    moved          = (PetscBool)(moved || a != el->frame_A[k]);
    el->frame_A[k] = a;
  }
  if (el->row_p) { /* rows that follow the parameters of its values too: moved when a constant changed */
    PetscReal c[6];

    for (PetscInt r = 0; r < el->nrow; r++) c[r] = el->row[r].c;
    el->ops->rows(desc, el);
    for (PetscInt r = 0; r < el->nrow; r++) moved = (PetscBool)(moved || c[r] != el->row[r].c);
  } else if (moved && el->ops->rows) el->ops->rows(desc, el);
  return moved;
}

/*@C
  MbsGeometryFirst - Whether el's point coordinate n is the first of its parameter's (the derivatives sum over all of a
  parameter's coordinates, so a loop over the parameters takes only the first). Not collective.
@*/
PetscBool MbsGeometryFirst(const MbsElement *el, PetscInt n)
{
  for (PetscInt m = 0; m < n; m++)
    if (el->geometry[m].param == el->geometry[n].param) return PETSC_FALSE;
  return PETSC_TRUE;
}

/*@C
  MbsGeometryPointDerivative - dP_k/dp_j of el's point k as a map (a direction map of its body, linear in q; constant
  on the ground and a point mass); false when p_j does not move the point. Not collective.
@*/
PetscBool MbsGeometryPointDerivative(MbsDescription desc, const MbsElement *el, PetscInt k, PetscInt j, MbsVectorMap *map)
{
  PetscReal dx[3] = {0, 0, 0};
  PetscBool found = PETSC_FALSE;

  for (PetscInt n = 0; n < el->ngeometry; n++) {
    const MbsGeometry *g = &el->geometry[n];

    if (g->param != j || g->point != k) continue;
    found = PETSC_TRUE;
    for (PetscInt i = 0; i < 3; i++) dx[i] += g->dx[i];
  }
  MbsMapDirection(desc, el->body[k], dx, map);
  return found;
}

/*@C
  MbsGeometryDifferenceDerivative - d(P_b - P_a)/dp_j of el's two points as a map; false when p_j moves neither. Not
  collective.
@*/
PetscBool MbsGeometryDifferenceDerivative(MbsDescription desc, const MbsElement *el, PetscInt j, MbsVectorMap *map)
{
  MbsVectorMap da, db;
  PetscBool    found_a = MbsGeometryPointDerivative(desc, el, 0, j, &da), found_b = MbsGeometryPointDerivative(desc, el, 1, j, &db);

  MbsMapDifference(&db, &da, map);
  return (PetscBool)(found_a || found_b);
}

/*@C
  MbsGeometrySensorP - A sensor y = e.(P x) (+ e.P0 with constant: its position) of el's point 0: dy/dp_j = e.(dP/dp_j x)
  (+ its constant) added into dydp for each parameter among the point's coordinates. Not collective.
@*/
void MbsGeometrySensorP(MbsDescription desc, const MbsElement *el, const PetscReal x[], PetscBool constant, const PetscReal e[3], PetscReal dydp[])
{
  for (PetscInt n = 0; n < el->ngeometry; n++) {
    PetscInt     j = el->geometry[n].param;
    MbsVectorMap D;
    PetscReal    d[3];

    if (!MbsGeometryFirst(el, n)) continue;
    MbsGeometryPointDerivative(desc, el, 0, j, &D);
    MbsMapEval(desc, &D, x, constant, d);
    dydp[j] += e[0] * d[0] + e[1] * d[1] + e[2] * d[2];
  }
}

/*@C
  MbsElementPointDifference - The map P_b - P_a of an element's points el->vector[0], el->vector[1] (body coordinates):
  a joint's, a bushing's, a spring-damper's, a relative displacement's. Not collective.
@*/
void MbsElementPointDifference(MbsDescription desc, const MbsElement *el, MbsVectorMap *d)
{
  MbsVectorMap pa, pb;

  MbsMapPoint(desc, el->body[0], el->vector[0], &pa);
  MbsMapPoint(desc, el->body[1], el->vector[1], &pb);
  MbsMapDifference(&pb, &pa, d);
}

/*@C
  MbsJointPointsMoved - The rows callback of the joints: their first npoint_row rows a(q).(P_b - P_a) take the points'
  new difference map, and the rows that read an axis that is a parameter its new vectors. Not collective.
@*/
void MbsJointPointsMoved(MbsDescription desc, MbsElement *el)
{
  MbsVectorMap d, b;
  PetscReal    z[2][3], n[2][3], dz[2][3], dn[2][3];

  MbsElementPointDifference(desc, el, &d);
  for (PetscInt r = 0; r < el->npoint_row; r++) el->row[r].b[0] = d;
  if (el->naxis) JointAxisFrame(desc, el, -1, z, n, dz, dn);
  for (PetscInt r = 0; r < el->nrow && el->naxis; r++) {
    if (el->axis_row[r] == MBS_AXIS_NONE) continue;
    JointAxisRowMaps(desc, el, r, z, n, &el->row[r].a[0], &b);
    if (JointAxisCommon(el, r)) el->row[r].b[0] = b;
  }
}

/*@C
  MbsJointRowP - dPhi_i/dp_j of a joint's row i, a(q).D_j(q) (a bilinear scalar), into drow; false when p_j does not
  move the row. Zero at the file's pose for a point in ground coordinates (point:, on both bodies); a point_a or point_b
  moves the start pose instead (ProjectPose in model_described.c). Not collective.
@*/
PetscBool MbsJointRowP(MbsDescription desc, const MbsElement *el, PetscInt i, PetscInt j, MbsBilinear *drow)
{
  MbsVectorMap D;

  drow->nproduct = 0;
  drow->c        = 0;
  if (MbsJointAxisRowMoves(el, i) && MbsJointAxisParameter(el, j)) { /* d(a.b)/dp_j = da.b + a.db (a common axis) or da.(P_b - P_a) */
    PetscReal    z[2][3], n[2][3], dz[2][3], dn[2][3];
    MbsVectorMap a, b, da, db;

    JointAxisFrame(desc, el, j, z, n, dz, dn);
    JointAxisRowMaps(desc, el, i, z, n, &a, &b);
    JointAxisRowMaps(desc, el, i, dz, dn, &da, &db);
    if (!JointAxisCommon(el, i)) MbsElementPointDifference(desc, el, &b);
    MbsBilinearProduct(&da, &b, 1, drow);
    if (JointAxisCommon(el, i)) MbsBilinearProduct(&a, &db, 1, drow);
    return PETSC_TRUE;
  }
  if (i >= el->npoint_row || !MbsGeometryDifferenceDerivative(desc, el, j, &D)) return PETSC_FALSE;
  MbsBilinearProduct(&el->row[i].a[0], &D, el->row[i].sign[0], drow);
  return PETSC_TRUE;
}
