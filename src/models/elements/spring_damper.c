/*
  Element spring_damper: a spring of free length L0 [m] and a damper between a point of body a and a point of body b,
  linear (k [N/m], c [N s/m]) or nonlinear laws of the elongation x = L - L0 and its rate (force_law.c). With
  d = P_b - P_a = D q + d0 (D constant), L = |d|, e = d / L, L' = e.D v and the force s = g(L - L0, L') along e
  (linear: g = k (L - L0) + c L', g_x = k, g_v = c), the generalised force is f = -s D^T e and

    -df/dq = D^T [e (g_x e + g_v (D v - e L') / L)^T + s (I - e e^T) / L] D,    -df/dv = D^T g_v e e^T D,
    -df/dp = g_p D^T e,   -df/dL0 = -g_x D^T e.

  Fields: bodies: [a, b], point_a, point_b (body coordinates; two different points), stiffness, damping, free_length
  (default: the distance at the initial pose, an unloaded spring).
*/
#include "models/elements/elementimpl.h"

static void SpringDamperMap(MbsDescription desc, const MbsElement *el, MbsVectorMap *d)
{
  MbsVectorMap pa, pb;

  MbsMapPoint(desc, el->body[0], el->vector[0], &pa);
  MbsMapPoint(desc, el->body[1], el->vector[1], &pb);
  MbsMapDifference(&pb, &pa, d);
}

static PetscErrorCode SpringDamperRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  MbsVectorMap   d;
  PetscReal      x[3], length;
  PetscInt       nlength;

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadJointPoints(reader, node, el, el->vector));
  PetscCall(MbsForceLawsRead(reader, node, "stiffness", PETSC_TRUE, "N", "m", PETSC_TRUE, 1, el, 0, NULL));
  PetscCall(MbsForceLawsRead(reader, node, "damping", PETSC_FALSE, "N", "m", PETSC_FALSE, 1, el, 1, NULL));
  PetscCall(MbsYAMLReadValues(reader, node, "free_length", "m", PETSC_FALSE, 1, &el->value[2], &nlength));
  SpringDamperMap(desc, el, &d);
  MbsMapInitial(desc, &d, x);
  length = PetscSqrtReal(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  if (!(length > 0)) PetscCall(MbsYAMLError(reader, node, "its two points coincide at the initial pose: a spring_damper needs a direction (use a bushing for a zero-length spring)"));
  if (!nlength) el->value[2].value = length;
  PetscFunctionReturn(0);
}

/* The map D, the length L = |D q + d0|, the direction e and the rate e.(D w) (D w into dw) of the spring at q along w */
static PetscErrorCode SpringDamperAxis(MbsDescription desc, const MbsElement *el, const PetscReal q[], const PetscReal w[], MbsVectorMap *D, PetscReal dw[3], PetscReal e[3], PetscReal *L, PetscReal *rate)
{
  PetscReal d[3];

  PetscFunctionBeginUser;
  SpringDamperMap(desc, el, D);
  MbsMapEval(desc, D, q, PETSC_TRUE, d);
  MbsMapEval(desc, D, w, PETSC_FALSE, dw);
  *L = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  PetscCheck(*L > 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Model file '%s', element '%s' (line %" PetscInt_FMT "): its two points met; the spring has no direction", desc->file, el->name, el->line);
  *rate = 0;
  for (PetscInt a = 0; a < 3; a++) e[a] = d[a] / *L;
  for (PetscInt a = 0; a < 3; a++) *rate += e[a] * dw[a];
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringDamperForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  MbsVectorMap D;
  MbsLawForce  g;
  PetscReal    dd[3], e[3], L, rate, K[9], C[9];

  PetscFunctionBeginUser;
  PetscCall(SpringDamperAxis(desc, el, q, v, &D, dd, e, &L, &rate));
  MbsForceLawEval(desc, el, 0, 1, L - MbsValueOf(&el->value[2], desc->p), rate, &g);
  if (F) MbsMapAddTranspose(desc, &D, g.g, e, F, 1);
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt b = 0; b < 3; b++) {
      K[3 * a + b] = e[a] * (g.gx * e[b] + g.gv * (dd[b] - e[b] * rate) / L) + g.g * ((a == b) - e[a] * e[b]) / L;
      C[3 * a + b] = g.gv * e[a] * e[b];
    }
  if (Jq) MbsMapAddOuter(desc, &D, &D, K, 1, Jq, ld);
  if (Jv) MbsMapAddOuter(desc, &D, &D, C, 1, Jv, ld);
  for (PetscInt k = 0; k < g.np && Jp; k++) MbsMapAddTranspose(desc, &D, g.dgdp[k], e, Jp + g.param[k] * ld, 1);
  if (Jp && el->value[2].param >= 0) MbsMapAddTranspose(desc, &D, -g.gx, e, Jp + el->value[2].param * ld, 1);
  PetscFunctionReturn(0);
}

/*
  The force on the coordinate s = L - L0 (MbsCoordinateForceSecond): s_q = e^T D, s_qq = D^T K D with K = (I - e e^T) / L,
  and along sq (dd = D sq, dL = e.dd, de = (dd - e dL) / L) s_qq' = D^T (-(de e^T + e de^T) / L - K dL / L) D
*/
static PetscErrorCode SpringDamperForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  PetscInt     nq   = desc->nq;
  PetscReal   *grad = work, *hess = grad + nq, *third = hess + nq * nq, dd[3], e[3], de[3], K[9], T[9], L, dL;
  MbsVectorMap D;

  PetscFunctionBeginUser;
  PetscCall(SpringDamperAxis(desc, el, q, sq, &D, dd, e, &L, &dL));
  for (PetscInt a = 0; a < 3; a++) de[a] = (dd[a] - e[a] * dL) / L;
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt b = 0; b < 3; b++) {
      K[3 * a + b] = ((a == b) - e[a] * e[b]) / L;
      T[3 * a + b] = -(de[a] * e[b] + e[a] * de[b]) / L - K[3 * a + b] * dL / L;
    }
  PetscCall(PetscArrayzero(grad, nq + 2 * nq * nq));
  MbsMapAddTranspose(desc, &D, 1, e, grad, 1);
  MbsMapAddOuter(desc, &D, &D, K, 1, hess, nq);
  MbsMapAddOuter(desc, &D, &D, T, 1, third, nq);
  MbsCoordinateForceSecond(desc, el, 0, 1, L - MbsValueOf(&el->value[2], desc->p), el->value[2].param == j ? -1 : 0, NULL, grad, hess, third, v, sq, sv, j, Dq, Dv, ld, third + nq * nq);
  PetscFunctionReturn(0);
}

static const MbsElementType SpringDamper = {MBS_ELEMENT_FORCE, SpringDamperRead, SpringDamperForce, NULL, NULL, PETSC_FALSE, NULL, NULL, SpringDamperForceSecond, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_SpringDamper(const MbsElementType **type)
{
  *type = &SpringDamper;
  return 0;
}
