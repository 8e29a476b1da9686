/*
  The registry of element types of model files: each type is one file of this folder with one table of callbacks
  (MbsElementType), found by the name the file gives as type:.
*/
#include "models/elements/elementimpl.h"

static PetscFunctionList MbsElementList = NULL;

static PetscErrorCode MbsElementFinalizePackage(void)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFunctionListDestroy(&MbsElementList));
  PetscFunctionReturn(0);
}

static PetscErrorCode MbsElementRegisterAll(void)
{
  PetscFunctionBeginUser;
  if (MbsElementList) PetscFunctionReturn(0);
  PetscCall(PetscRegisterFinalize(MbsElementFinalizePackage));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "spherical", MbsElementGetType_Spherical));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "revolute", MbsElementGetType_Revolute));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "fixed", MbsElementGetType_Fixed));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "point_on_line", MbsElementGetType_PointOnLine));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "point_on_plane", MbsElementGetType_PointOnPlane));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "prismatic", MbsElementGetType_Prismatic));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "cylindrical", MbsElementGetType_Cylindrical));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "universal", MbsElementGetType_Universal));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "distance", MbsElementGetType_Distance));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "spring_damper", MbsElementGetType_SpringDamper));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "bushing", MbsElementGetType_Bushing));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "rotational_spring", MbsElementGetType_RotationalSpring));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "force", MbsElementGetType_Force));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "engine_force", MbsElementGetType_EngineForce));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "engine_torque", MbsElementGetType_EngineTorque));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "position", MbsElementGetType_Position));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "velocity", MbsElementGetType_Velocity));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "acceleration", MbsElementGetType_Acceleration));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "angle", MbsElementGetType_Angle));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "relative_displacement", MbsElementGetType_RelativeDisplacement));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "bushing_force", MbsElementGetType_BushingForce));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "bushing_moment", MbsElementGetType_BushingMoment));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "maxwell", MbsElementGetType_Maxwell));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "prescribed", MbsElementGetType_Prescribed));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "reaction_force", MbsElementGetType_ReactionForce));
  PetscCall(PetscFunctionListAdd(&MbsElementList, "torque", MbsElementGetType_Torque));
  PetscFunctionReturn(0);
}

/*@C
  MbsElementTypeFind - The element type of that name, or NULL with the known names in known. Not collective.
@*/
PetscErrorCode MbsElementTypeFind(const char name[], const MbsElementType **type, char known[], size_t size)
{
  PetscErrorCode (*get)(const MbsElementType **) = NULL;

  PetscFunctionBeginUser;
  PetscCall(MbsElementRegisterAll());
  PetscCall(PetscFunctionListFind(MbsElementList, name, &get));
  *type = NULL;
  if (get) PetscCall(get(type));
  else PetscCall(MbsFunctionListNames(MbsElementList, known, size));
  PetscFunctionReturn(0);
}
