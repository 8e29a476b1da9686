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
*/
#include "models/elements/elementimpl.h"

/*@C
  MbsGeometryUpdate - Moves el's points to the parameters desc->p and rebuilds the rows that depend on them; nothing
  when no coordinate moved since the last call (an element with row_p: its rows rebuilt at every call). Returns whether
  a point or a row's constant moved. Not collective.
@*/
PetscBool MbsGeometryUpdate(MbsDescription desc, MbsElement *el)
{
  PetscReal x[2][3];
  PetscBool moved = PETSC_FALSE;

  if (!el->ngeometry && !el->row_p) return PETSC_FALSE;
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
  new difference map. Not collective.
@*/
void MbsJointPointsMoved(MbsDescription desc, MbsElement *el)
{
  MbsVectorMap d;

  MbsElementPointDifference(desc, el, &d);
  for (PetscInt r = 0; r < el->npoint_row; r++) el->row[r].b[0] = d;
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
  if (i >= el->npoint_row || !MbsGeometryDifferenceDerivative(desc, el, j, &D)) return PETSC_FALSE;
  MbsBilinearProduct(&el->row[i].a[0], &D, el->row[i].sign[0], drow);
  return PETSC_TRUE;
}
