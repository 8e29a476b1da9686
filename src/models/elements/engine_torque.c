/*
  Element engine_torque: a follower torque M = s(t) R m about a unit axis m fixed in the body (powertrain_mounts.md
  section 5: the second-order roll torque T2 sin(2 theta) about the crank axis), s(t) an engine-order law of the crank
  angle (engine_order.c), on the body alone (its reaction is not modelled). It is applied as the couple of two follower
  forces, linear in q (MbsFollowerTorque, engine_order.c, shared with torque's frame: body). Fields: body, axis (ground
  axes at the initial pose, turning with the body; its components may be parameters, unit "1"; geometry.c, "Axes"), and
  the law's orders, amplitudes [N m/(rad/s)^power], powers, phases, functions.
*/
#include "models/elements/elementimpl.h"

static PetscErrorCode EngineTorqueRead(MbsYAMLReader *reader, void *node, MbsElement *el)
{
  PetscReal axis[3];

  PetscFunctionBeginUser;
  PetscCall(MbsTorqueReadBodyAxis(reader, node, el, axis));
  el->normals = PETSC_TRUE; /* built from the file's branch (el->axis_k): refused where a parameter turns the axis onto it */
  PetscCall(MbsEngineOrderRead(reader, node, "N m", el));
  PetscFunctionReturn(0);
}

static const MbsElementType EngineTorque = {MBS_ELEMENT_EXCITATION, EngineTorqueRead, MbsFollowerTorque, NULL, NULL, PETSC_FALSE, MbsEngineOrderValue, NULL, MbsFollowerTorqueSecond, PETSC_FALSE, NULL};

PetscErrorCode MbsElementGetType_EngineTorque(const MbsElementType **type)
{
  *type = &EngineTorque;
  return 0;
}
