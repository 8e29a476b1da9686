/*
  Element spring_damper: a spring of free length L0 [m] and a damper between a point of body a and a point of body b,
  linear (k [N/m], c [N s/m]) or nonlinear laws of the elongation x = L - L0 and its rate (force_law.c). With
  d = P_b - P_a = D q + d0 (D constant), L = |d|, e = d / L, L' = e.D v and the force s = g(L - L0, L') along e
  (linear: g = k (L - L0) + c L', g_x = k, g_v = c), the generalised force is f = -s D^T e and

    -df/dq = D^T [e (g_x e + g_v (D v - e L') / L)^T + s (I - e e^T) / L] D,    -df/dv = D^T g_v e e^T D,
    -df/dp = g_p D^T e,   -df/dL0 = -g_x D^T e.

  A coordinate of a point that is a parameter p_j (geometry.c) moves d by G = d(P_b - P_a)/dp_j (a map linear in q;
  g = G q + g0 its value): with K = (I - e e^T) / L,

    L_p = e.g,   (D^T e)_p = G^T e + D^T K g,   (D^T K D)_p = D^T T(g) D + G^T K D + D^T K G,

  T(x) = -(K x e^T + e (K x)^T) / L - K (e.x) / L the derivative of K along d' = x; MbsCoordinateForceP and
  MbsCoordinateForceSecond take them.

  Fields: bodies: [a, b], point_a, point_b (body coordinates; two different points), stiffness, damping, free_length
  (default: the distance at the initial pose at the file's values, an unloaded spring there; a point that moves with a
  parameter then loads it).
*/
#include "models/elements/elementimpl.h"

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
  MbsElementPointDifference(desc, el, &d);
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
  MbsElementPointDifference(desc, el, D);
  MbsMapEval(desc, D, q, PETSC_TRUE, d);
  MbsMapEval(desc, D, w, PETSC_FALSE, dw);
  *L = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  PetscCheck(*L > 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Model file '%s', element '%s' (line %" PetscInt_FMT "): its two points met; the spring has no direction", desc->file, el->name, el->line);
  *rate = 0;
  for (PetscInt a = 0; a < 3; a++) e[a] = d[a] / *L;
  for (PetscInt a = 0; a < 3; a++) *rate += e[a] * dw[a];
  PetscFunctionReturn(0);
}

/* T(x) of the header: the derivative of K = (I - e e^T) / L along d' = x */
static void AxisCurvature(const PetscReal e[3], PetscReal L, const PetscReal x[3], PetscReal K[9], PetscReal T[9])
{
  PetscReal dL = e[0] * x[0] + e[1] * x[1] + e[2] * x[2], de[3];

  for (PetscInt a = 0; a < 3; a++) de[a] = (x[a] - e[a] * dL) / L;
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt b = 0; b < 3; b++) {
      K[3 * a + b] = ((a == b) - e[a] * e[b]) / L;
      T[3 * a + b] = -(de[a] * e[b] + e[a] * de[b]) / L - K[3 * a + b] * dL / L;
    }
}

/* For a parameter p_j among its points' coordinates: L_p (false: none), (D^T e)_p into grad_p and, with hess_p, (D^T K D)_p */
static PetscBool AxisByPoint(MbsDescription desc, const MbsElement *el, PetscInt j, const PetscReal q[], const MbsVectorMap *D, const PetscReal e[3], PetscReal L, PetscReal *L_p, PetscReal grad_p[], PetscReal hess_p[])
{
  MbsVectorMap G;
  PetscReal    g[3], Kg[3] = {0, 0, 0}, K[9], T[9];
  PetscInt     nq = desc->nq;

  if (!MbsGeometryDifferenceDerivative(desc, el, j, &G)) return PETSC_FALSE;
  MbsMapEval(desc, &G, q, PETSC_TRUE, g);
  AxisCurvature(e, L, g, K, T);
  *L_p = e[0] * g[0] + e[1] * g[1] + e[2] * g[2];
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt b = 0; b < 3; b++) Kg[a] += K[3 * a + b] * g[b];
  for (PetscInt i = 0; i < nq; i++) grad_p[i] = 0;
  MbsMapAddTranspose(desc, &G, 1, e, grad_p, 1);
  MbsMapAddTranspose(desc, D, 1, Kg, grad_p, 1);
  if (!hess_p) return PETSC_TRUE;
  for (PetscInt i = 0; i < nq * nq; i++) hess_p[i] = 0;
  MbsMapAddOuter(desc, D, D, T, 1, hess_p, nq);
  MbsMapAddOuter(desc, &G, D, K, 1, hess_p, nq);
  MbsMapAddOuter(desc, D, &G, K, 1, hess_p, nq);
  return PETSC_TRUE;
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
  for (PetscInt n = 0; n < el->ngeometry && Jp; n++) {
    PetscInt   j = el->geometry[n].param, nq = desc->nq;
    PetscReal *grad = desc->work, *grad_p = grad + nq, L_p;

    if (!MbsGeometryFirst(el, n)) continue;
    PetscCall(PetscArrayzero(grad, nq));
    MbsMapAddTranspose(desc, &D, 1, e, grad, 1);
    if (AxisByPoint(desc, el, j, q, &D, e, L, &L_p, grad_p, NULL)) MbsCoordinateForceP(desc, el, 0, 1, L - MbsValueOf(&el->value[2], desc->p), grad, v, L_p, grad_p, Jp + j * ld);
  }
  PetscFunctionReturn(0);
}

/*
  The force on the coordinate s = L - L0 (MbsCoordinateForceSecond): s_q = e^T D, s_qq = D^T K D with K = (I - e e^T) / L,
  and along sq (dd = D sq, dL = e.dd, de = (dd - e dL) / L) s_qq' = D^T (-(de e^T + e de^T) / L - K dL / L) D
*/
static PetscErrorCode SpringDamperForceSecond(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscReal sq[], const PetscReal sv[], PetscInt j, PetscReal Dq[], PetscReal Dv[], PetscInt ld, PetscReal work[])
{
  PetscInt     nq   = desc->nq;
  PetscReal   *grad = work, *hess = grad + nq, *third = hess + nq * nq, *grad_p = third + nq * nq, *hess_p = grad_p + nq, dd[3], e[3], K[9], T[9], L, dL, L_p = 0;
  MbsVectorMap D;
  PetscBool    moved;

  PetscFunctionBeginUser;
  PetscCall(SpringDamperAxis(desc, el, q, sq, &D, dd, e, &L, &dL));
  AxisCurvature(e, L, dd, K, T);
  PetscCall(PetscArrayzero(grad, nq + 2 * nq * nq));
  MbsMapAddTranspose(desc, &D, 1, e, grad, 1);
  MbsMapAddOuter(desc, &D, &D, K, 1, hess, nq);
  MbsMapAddOuter(desc, &D, &D, T, 1, third, nq);
  moved = AxisByPoint(desc, el, j, q, &D, e, L, &L_p, grad_p, hess_p);
  for (PetscInt i = 0; i < nq * nq && moved; i++) third[i] += hess_p[i];
  MbsCoordinateForceSecond(desc, el, 0, 1, L - MbsValueOf(&el->value[2], desc->p), (el->value[2].param == j ? -1 : 0) + L_p, moved ? grad_p : NULL, grad, hess, third, v, sq, sv, j, Dq, Dv, ld, grad_p + nq);
  PetscFunctionReturn(0);
}

static const MbsElementType SpringDamper = {MBS_ELEMENT_FORCE, SpringDamperRead, SpringDamperForce, NULL, NULL, PETSC_FALSE, NULL, NULL, SpringDamperForceSecond, PETSC_TRUE, NULL};

PetscErrorCode MbsElementGetType_SpringDamper(const MbsElementType **type)
{
  *type = &SpringDamper;
  return 0;
}
