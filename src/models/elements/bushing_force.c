/*
  Elements bushing_force and bushing_moment: the load a named bushing (bushing.c) carries along one axis of its frame,

    y = g(s, s')   with s' = s_q v,   dy/dq = g_s s_q + g_s' (s_qq v)^T,   dy/dv = g_s' s_q,   dy/dp = g_p

  s the bushing's coordinate: e_i [m] for bushing_force (y = f_i [N]), the rotation x_r,i [rad] for bushing_moment
  (y = m_i [N m]), g that coordinate's force: k s + d s' for a linear stiffness k and damping d, or their nonlinear
  laws (force_law.c); numbers or parameters (then y depends on p directly, sensor_p). f is the bushing's f = K e + D e' in its frame: positive when b is displaced along +axis from a,
  which the bushing pulls back with -R_a C f on b (and pushes a with +R_a C f). Fields: bushing (the name of a bushing
  declared before the sensor; a rotational load needs its rotational_stiffness or rotational_damping), component: x,
  y or z (the bushing's frame axes). A force follows the bushing's points when their coordinates are parameters
  (geometry.c), a force and a moment its frame when its axes' entries are: dy/dp_j = g_s s_p + g_s' s_p,q v, s_p the
  coordinate's derivative (MbsBushingRowP).
*/
#include "models/elements/elementimpl.h"

/* The bushing's coordinate (first: 0 for forces, 3 for moments, plus the component) with its k and d, copied */
static PetscErrorCode BushingLoadRead(MbsYAMLReader *reader, void *node, MbsElement *el, PetscInt first)
{
  const char       *component[1];
  PetscInt          ncomponent = 1, i;
  const MbsElement *bushing;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadEarlierElement(reader, node, "bushing", el, &bushing));
  PetscCall(MbsYAMLReadWords(reader, node, "component", &ncomponent, component));
  if (!ncomponent || strlen(component[0]) != 1 || component[0][0] < 'x' || component[0][0] > 'z') PetscCall(MbsYAMLError(reader, node, "component must be x, y or z (an axis of the bushing's frame), got '%s'", ncomponent ? component[0] : "nothing"));
  i = first + component[0][0] - 'x';
  if (i >= bushing->nrow) PetscCall(MbsYAMLError(reader, node, "bushing '%s' has no rotational_stiffness or rotational_damping, so it carries no moment", bushing->name));
  el->body[0] = bushing->body[0];
  el->body[1] = bushing->body[1];
  el->row[0]  = bushing->row[i];
  el->nrow    = 1;
  if (i < 3) { /* a force moves with the bushing's points (geometry.c); a moment does not depend on them */
    el->ngeometry = bushing->ngeometry;
    PetscCall(PetscArraycpy(el->geometry, bushing->geometry, bushing->ngeometry));
    PetscCall(PetscArraycpy(&el->vector[0][0], &bushing->point0[0][0], 6));
  }
  el->nframe      = bushing->nframe; /* both follow its frame (bushing.c) */
  el->frame_first = i;
  el->frame_ok    = bushing->frame_ok;
  PetscCall(PetscArraycpy(el->frame, bushing->frame, 9));
  PetscCall(PetscArraycpy(el->frame_A, bushing->frame_A, 9));
  PetscCall(PetscArraycpy(el->frame_R, bushing->frame_R, 9));
  PetscCall(PetscArraycpy(el->frame_S, bushing->frame_S, 9));
  el->value[0] = bushing->value[i < 3 ? i : 3 + i]; /* as BushingForce: k_0..2, d_0..2, k_r 0..2, d_r 0..2 */
  el->value[1] = bushing->value[i < 3 ? 3 + i : 6 + i];
  if (bushing->law) { /* its nonlinear laws too (force_law.c), in an array as long as every element's */
    PetscCall(PetscCalloc1(MBS_MAX_VALUE, &el->law));
    el->law[0] = bushing->law[i < 3 ? i : 3 + i];
    el->law[1] = bushing->law[i < 3 ? 3 + i : 6 + i];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BushingForceRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(BushingLoadRead(reader, node, el, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode BushingMomentRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscFunctionBeginUser;
  PetscCall(BushingLoadRead(reader, node, el, 3));
  PetscFunctionReturn(0);
}

static PetscErrorCode BushingLoadSensor(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal *y, PetscReal dydq[], PetscReal dydv[], PetscReal dyda[])
{
  const MbsBilinear *s = &el->row[0];
  MbsLawForce        g;

  PetscFunctionBeginUser;
  MbsForceLawEval(desc, el, 0, 1, MbsBilinearValue(desc, s, q), MbsBilinearRate(desc, s, q, v), &g);
  *y = g.g;
  if (dydq) {
    MbsBilinearAddGradient(desc, s, q, g.gx, dydq, 1);
    MbsBilinearAddRateGradient(desc, s, v, g.gv, dydq, 1);
  }
  if (dydv) MbsBilinearAddGradient(desc, s, q, g.gv, dydv, 1);
  PetscFunctionReturn(0);
}

static PetscErrorCode BushingLoadSensorP(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal v[], const PetscReal a[], PetscReal dydp[])
{
  const MbsBilinear *s = &el->row[0];
  MbsLawForce        g;
  PetscInt           param[MBS_MAX_BUSHING_PARAM], nparam;

  PetscFunctionBeginUser;
  MbsForceLawEval(desc, el, 0, 1, MbsBilinearValue(desc, s, q), MbsBilinearRate(desc, s, q, v), &g);
  for (PetscInt k = 0; k < g.np; k++) dydp[g.param[k]] += g.dgdp[k];
  nparam = MbsBushingParameters(el, param);
  for (PetscInt n = 0; n < nparam; n++) { /* a point coordinate or frame entry p_j: dy/dp_j = g_e e_p + g_e' e_p,q v */
    PetscInt   j      = param[n];
    PetscReal *grad_p = desc->work, e_p, rate_p = 0;

    if (!MbsBushingRowP(desc, el, 0, j, q, &e_p, grad_p, NULL)) continue;
    for (PetscInt k = 0; k < desc->nq; k++) rate_p += grad_p[k] * v[k];
    dydp[j] += g.gx * e_p + g.gv * rate_p;
  }
  PetscFunctionReturn(0);
}

static const MbsElementType BushingForce  = {MBS_ELEMENT_SENSOR, BushingForceRead, NULL, BushingLoadSensor, "N", PETSC_FALSE, NULL, BushingLoadSensorP, NULL, PETSC_TRUE, MbsBushingRows};
static const MbsElementType BushingMoment = {MBS_ELEMENT_SENSOR, BushingMomentRead, NULL, BushingLoadSensor, "N m", PETSC_FALSE, NULL, BushingLoadSensorP, NULL, PETSC_FALSE, MbsBushingRows};

PetscErrorCode MbsElementGetType_BushingForce(const MbsElementType **type)
{
  *type = &BushingForce;
  return 0;
}

PetscErrorCode MbsElementGetType_BushingMoment(const MbsElementType **type)
{
  *type = &BushingMoment;
  return 0;
}
