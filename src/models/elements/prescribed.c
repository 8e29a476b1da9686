/*
  Element prescribed: a body point driven along a ground axis e by a time law, a rheonomic constraint (1 row)

    Phi(q, t) = e.(P(q) - P0) - d(t) = 0,    d(t) = s(t) - s(t0)    [m]

  P0 the point at the initial pose, t0 the file's start, s the law of a force element in metres (force.c:
  harmonics sum_i A_i sin(2 pi f_i t + phi_i), a sine sweep, or scale times a recorded history), so the initial pose
  holds whatever the law's parameters. The model (model_described.c) subtracts d from the row, d' from its velocity
  row Phi_q v - d' = 0 and adds d'' to the acceleration-level row of the consistent initial state; the initial velocity
  along e becomes d'(t0) by the impulse that changes the file's velocities least in the kinetic metric. Base excitation
  on a shaker: the driven body's reaction is the multiplier of the row. Fields: body (not the ground), point (ground
  coordinates at the initial pose, default the centre of mass), axis, then the law as a force's with amplitudes [m]
  (`until` is refused: the point would jump back to P0).
*/
#include "models/elements/elementimpl.h"

/* d(t) = s(t) - s(t0) and its rates (the law's); dddp (may be NULL) is set */
static PetscReal PrescribedMotion(MbsDescription desc, const MbsElement *el, PetscReal t, PetscInt order, PetscReal dddp[])
{
  PetscReal start = 0;

  for (PetscInt j = 0; j < desc->nparam && dddp; j++) dddp[j] = 0;
  if (order == 0) {
    start = MbsTimeLaw(desc, el, desc->t0, 0, dddp);
    for (PetscInt j = 0; j < desc->nparam && dddp; j++) dddp[j] = -dddp[j];
  }
  return MbsTimeLaw(desc, el, t, order, dddp) - start;
}

static PetscErrorCode PrescribedRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  MbsDescription desc = MbsYAMLReaderDescription(reader);
  MbsVectorMap   P, e;
  PetscReal      P0[3];

  PetscFunctionBeginUser;
  PetscCall(MbsYAMLReadBody(reader, node, "body", PETSC_TRUE, &el->body[0]));
  if (el->body[0] == MBS_GROUND) PetscCall(MbsYAMLError(reader, node, "a prescribed motion of the ground moves nothing; name a body"));
  PetscCall(MbsYAMLReadWorldPoint(reader, node, el->body[0], el->vector[0]));
  PetscCall(MbsYAMLReadUnitVector(reader, node, "axis", el->vector[1]));
  if (MbsYAMLHasField(reader, node, "until")) PetscCall(MbsYAMLError(reader, node, "a prescribed motion takes no until: its point would jump back to the initial position there"));
  if (!MbsYAMLHasField(reader, node, "amplitudes") && !MbsYAMLHasField(reader, node, "sweep") && !MbsYAMLHasField(reader, node, "history"))
    PetscCall(MbsYAMLError(reader, node, "a prescribed motion needs a law: amplitudes and frequencies, a sweep, or a history"));
  PetscCall(MbsTimeLawRead(reader, node, "m", el));
  MbsMapPoint(desc, el->body[0], el->vector[0], &P);
  MbsMapConstant(el->vector[1], &e);
  MbsBilinearProduct(&e, &P, 1, MbsElementNewRow(el));
  MbsMapInitial(desc, &P, P0);
  el->motion   = PrescribedMotion;
  el->row[0].c = -(el->vector[1][0] * P0[0] + el->vector[1][1] * P0[1] + el->vector[1][2] * P0[2]);
  PetscFunctionReturn(0);
}

static const MbsElementType Prescribed = {MBS_ELEMENT_CONSTRAINT, PrescribedRead, NULL, NULL, NULL, PETSC_FALSE, NULL, NULL, NULL, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_Prescribed(const MbsElementType **type)
{
  *type = &Prescribed;
  return 0;
}
