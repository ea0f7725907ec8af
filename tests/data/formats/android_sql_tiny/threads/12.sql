BEGIN EXCLUSIVE;
INSERT INTO notes(body) VALUES (hex(zeroblob(3000)))
INSERT INTO notes(body) VALUES (hex(zeroblob(3000)))
COMMIT;

DELETE FROM notes WHERE id=2
SELECT body FROM notes WHERE id=1
