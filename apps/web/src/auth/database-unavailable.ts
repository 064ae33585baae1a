/** The digest of a page failure because the database did not answer (shared by the server and the error page). */
export const DATABASE_UNAVAILABLE_DIGEST = "SHELF_DATABASE_UNAVAILABLE";
