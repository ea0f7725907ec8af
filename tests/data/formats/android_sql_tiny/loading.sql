PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
INSERT INTO notes VALUES(1,'first note');
INSERT INTO notes VALUES(2,'a second note
that spans two lines');
CREATE INDEX notes_body ON notes(body);
COMMIT;
