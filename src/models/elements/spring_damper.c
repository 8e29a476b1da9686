/*
  Element spring_damper: a linear spring k [N/m] of free length L0 [m] and damper c [N s/m] between a point of body
  a and a point of body b. With d = P_b - P_a = D q + d0 (D constant), L = |d|, e = d / L, L' = e.D v and the force
  s = k (L - L0) + c L' along e, the generalised force is f = -s D^T e and

    -df/dq = D^T [e (k e + c (D v - e L') / L)^T + s (I - e e^T) / L] D,    -df/dv = D^T c e e^T D,
    -df/dk = (L - L0) D^T e,   -df/dc = L' D^T e,   -df/dL0 = -k D^T e.

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
  PetscCall(MbsYAMLReadValues(reader, node, "stiffness", "N/m", PETSC_TRUE, 1, &el->value[0], NULL));
  PetscCall(MbsYAMLReadValues(reader, node, "damping", "N s/m", PETSC_FALSE, 1, &el->value[1], NULL));
  PetscCall(MbsYAMLReadValues(reader, node, "free_length", "m", PETSC_FALSE, 1, &el->value[2], &nlength));
  SpringDamperMap(desc, el, &d);
  MbsMapInitial(desc, &d, x);
  length = PetscSqrtReal(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  if (!(length > 0)) PetscCall(MbsYAMLError(reader, node, "its two points coincide at the initial pose: a spring_damper needs a direction (use a bushing for a zero-length spring)"));
  if (!nlength) el->value[2].value = length;
  PetscFunctionReturn(0);
}

static PetscErrorCode SpringDamperForce(MbsDescription desc, const MbsElement *el, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal F[], PetscReal Jq[], PetscReal Jv[], PetscReal Jp[], PetscInt ld)
{
  const PetscReal *p = desc->p, k = MbsValueOf(&el->value[0], p), c = MbsValueOf(&el->value[1], p), L0 = MbsValueOf(&el->value[2], p);
  MbsVectorMap     D;
  PetscReal        d[3], dd[3], e[3], L, rate = 0, s, K[9], C[9];

  PetscFunctionBeginUser;
  SpringDamperMap(desc, el, &D);
  MbsMapEval(desc, &D, q, PETSC_TRUE, d);
  MbsMapEval(desc, &D, v, PETSC_FALSE, dd);
  L = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  PetscCheck(L > 0, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "Model file '%s', element '%s' (line %" PetscInt_FMT "): its two points met; the spring has no direction", desc->file, el->name, el->line);
  for (PetscInt a = 0; a < 3; a++) e[a] = d[a] / L;
  for (PetscInt a = 0; a < 3; a++) rate += e[a] * dd[a];
  s = k * (L - L0) + c * rate;
  if (F) MbsMapAddTranspose(desc, &D, s, e, F, 1);
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt b = 0; b < 3; b++) {
      K[3 * a + b] = e[a] * (k * e[b] + c * (dd[b] - e[b] * rate) / L) + s * ((a == b) - e[a] * e[b]) / L;
      C[3 * a + b] = c * e[a] * e[b];
    }
  if (Jq) MbsMapAddOuter(desc, &D, &D, K, 1, Jq, ld);
  if (Jv) MbsMapAddOuter(desc, &D, &D, C, 1, Jv, ld);
  if (Jp && el->value[0].param >= 0) MbsMapAddTranspose(desc, &D, L - L0, e, Jp + el->value[0].param * ld, 1);
  if (Jp && el->value[1].param >= 0) MbsMapAddTranspose(desc, &D, rate, e, Jp + el->value[1].param * ld, 1);
  if (Jp && el->value[2].param >= 0) MbsMapAddTranspose(desc, &D, -k, e, Jp + el->value[2].param * ld, 1);
  PetscFunctionReturn(0);
}

static const MbsElementType SpringDamper = {MBS_ELEMENT_FORCE, SpringDamperRead, SpringDamperForce, NULL, NULL, PETSC_FALSE, NULL, NULL};

PetscErrorCode MbsElementGetType_SpringDamper(const MbsElementType **type)
{
  *type = &SpringDamper;
  return 0;
}
