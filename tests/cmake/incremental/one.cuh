#define ONE_FACTOR 2.0f
