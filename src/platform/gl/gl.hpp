// The one place OpenGL headers are chosen: GLES 3 / WebGL2 in the browser, GL 3.3 core on the desktop.
#pragma once
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#define GL_GLEXT_PROTOTYPES
#include <GL/glcorearb.h>
#endif
